"""The checker's standard-library answers agree with the library rules they copy.

Exercise 14's `choose_tiles` is `tilelab.ops.matmul_registers.choose_config` on plain (block_m, block_n) pairs;
its checks use the registers kernel's tiles and the H200's 132 SMs. (Exercise 13's `aligned_row_stride` is kept
equal to `tilelab.alignment.output_row_stride` in tests/unit/test_aligned_allocation.py.)
"""

import inspect
import random

from learning.checking import reference as ref

from .helpers import REPO_ROOT

SIDES = [1, 15, 16, 17, 63, 64, 65, 100, 127, 128, 129, 255, 256, 257, 300, 511, 512, 513, 768, 1000, 1024, 1536,
         2048, 3000, 4096, 11008, 16384]
SMS = [1, 8, 16, 46, 66, 78, 80, 100, 108, 110, 114, 132, 144, 170, 264]


def test_the_course_tiles_are_the_registers_kernel_s():
    from tilelab.ops import matmul_registers

    assert ref.REGISTERS_TILES == [(c.block_m, c.block_n) for c in matmul_registers.CONFIGS]


def test_choose_tiles_agrees_with_choose_config():
    from tilelab.ops import matmul_registers
    from tilelab.tuning import tile_count

    rng = random.Random(14)
    sides = SIDES + [rng.randint(1, 20000) for _ in range(40)]
    problems = [(m, n, sms) for m in sides for n in sides for sms in SMS[::3]]
    problems += [(rng.randint(1, 20000), rng.randint(1, 20000), rng.choice(SMS)) for _ in range(3000)]
    for m, n, sms in problems:
        # The default full_fill too: a new FULL_FILL in the library must reach the course (and workshop I5).
        chosen = matmul_registers.choose_config(m, n, sms)
        assert ref.choose_tiles(m, n, sms, ref.REGISTERS_TILES) == (chosen.block_m, chosen.block_n), (m, n, sms)
        assert ref.tile_count(m, n, chosen.block_m, chosen.block_n) == tile_count(m, n, chosen)


def test_the_measured_shapes_choose_what_the_workshop_says():
    picks = {(m, n): ref.choose_tiles(m, n, ref.H200_SMS, ref.REGISTERS_TILES)
             for m, n in [(512, 4096), (768, 4096), (1000, 1000), (128, 11008), (128, 4096), (2048, 2048),
                          (4096, 4096), (64, 16384)]}
    assert picks == {(512, 4096): (256, 64), (768, 4096): (256, 128), (1000, 1000): (128, 64),
                     (128, 11008): (128, 128), (128, 4096): (64, 64), (2048, 2048): (256, 128),
                     (4096, 4096): (256, 128), (64, 16384): (64, 64)}
    assert ref.waves(172, ref.H200_SMS) == 2 and round(ref.busy_fraction(172, ref.H200_SMS), 4) == 0.6515


def test_the_pingpong_rule_is_the_library_s():
    """Exercise 15's waves_in_tiles and pingpong_pays_off against tilelab.ops.matmul_pingpong's, with the
    persistent kernel's default tile: a new threshold or tile in the library must reach the course."""
    from tilelab.ops import matmul_hopper, matmul_pingpong

    persistent = matmul_hopper.PERSISTENT_CANDIDATES[0]
    assert ref.PERSISTENT_TILE == (persistent.block_m, persistent.block_n)
    pingpong = matmul_pingpong.DEFAULT_CONFIG
    assert ref.PINGPONG_TILE == (pingpong.block_m, pingpong.block_n)
    assert ref.PINGPONG_MAX_K == matmul_pingpong.PINGPONG_MAX_K
    rng = random.Random(15)
    sides = SIDES + [rng.randint(1, 20000) for _ in range(30)]
    for m in sides:
        for n in sides:
            sms = rng.choice(SMS)
            k = rng.choice([512, 1024, 2048, 2049, 4096, 11008])
            for config, tile in ((pingpong, ref.PINGPONG_TILE), (persistent, ref.PERSISTENT_TILE)):
                assert ref.waves_in_tiles(m, n, *tile, sms) == matmul_pingpong.waves_in_tiles(m, n, config, sms)
            assert ref.pingpong_pays_off(m, n, k, sms) == matmul_pingpong.pays_off(m, n, k, sms), (m, n, k, sms)


def test_one_list_of_tiles_is_the_library_s():
    """Exercise 16's busiest_share is the share of the busiest program in the library's persistent grids for a
    batch: the persistent kernel's (`persistent_grid`, host-built descriptors) and the Gluon kernels'
    (`matmul_pingpong.waves_in_tiles` on its 128x128 tiles, which the batch rule compares with 2)."""
    from tilelab.ops import matmul_hopper, matmul_pingpong
    from tilelab.tuning import tile_count

    persistent = matmul_hopper.PERSISTENT_CANDIDATES[0]
    assert matmul_hopper.persistent_host_descriptors(persistent)
    pingpong = matmul_pingpong.DEFAULT_CONFIG
    assert ref.PINGPONG_TILE == (128, 128)
    rng = random.Random(16)
    for _ in range(3000):
        m, n, sms = rng.choice(SIDES), rng.choice(SIDES), rng.choice(SMS)
        batch = rng.choice([1, 2, 3, 4, 8, 12, 16, 32, 64, 128, 256, rng.randint(1, 500)])
        tiles = tile_count(m, n, persistent)
        programs, axis_1 = matmul_hopper.persistent_grid(tiles, batch, sms, persistent)
        assert axis_1 == 1 and programs <= sms
        assert ref.busiest_share(batch, tiles, sms) == ref.cdiv(batch * tiles, programs), (batch, m, n, sms)
        assert ref.busiest_share(batch, ref.tile_count(m, n, *ref.PINGPONG_TILE), sms) == (
            matmul_pingpong.waves_in_tiles(m, n, pingpong, sms, batch)), (batch, m, n, sms)
    # The workshop's numbers.
    assert ref.programs_per_matrix_grid(8, ref.H200_SMS) == 136
    assert ref.per_matrix_grid_time(8, 512, ref.H200_SMS) == 62 and ref.busiest_share(8, 512, ref.H200_SMS) == 32
    assert [ref.busiest_share(batch, ref.tile_count(side, side, 128, 128), ref.H200_SMS)
            for batch, side in ((256, 128), (128, 128), (2, 1024), (4, 512))] == [2, 1, 1, 1]


def test_exercise_17_matches_the_library_and_torch():
    """The implicit GEMM's reference agrees with tilelab.ops.conv.ConvGeometry, and its A (the kernel's K order)
    times the weights is torch's convolution."""
    import torch

    from learning.checking import reference as ref
    from learning.solutions import implicit_gemm as solution
    from tilelab.ops.conv import ConvGeometry

    for batch, c_in, h, w, c_out, kh, kw, stride, padding, dilation in [(2, 3, 9, 7, 4, 3, 2, 2, 1, 1),
                                                                       (1, 2, 6, 6, 3, 3, 3, 1, 2, 2)]:
        g = ConvGeometry(batch, c_in, h, w, c_out, kh, kw, (stride,) * 2, (padding,) * 2, (dilation,) * 2)
        sizes = solution.gemm_sizes(batch, c_in, h, w, c_out, kh, kw, stride, padding, dilation)
        assert sizes == g.gemm()
        x = torch.randn(batch, c_in, h, w, dtype=torch.float64)
        weight = torch.randn(c_out, c_in, kh, kw, dtype=torch.float64)
        m_count, _, k_count = sizes
        a = torch.zeros(m_count, k_count, dtype=torch.float64)
        for m in range(m_count):
            for k in range(k_count):
                found = ref.conv_a_entry(m, k, batch, c_in, h, w, kh, kw, stride, padding, dilation)
                assert found == solution.a_entry(m, k, batch, c_in, h, w, kh, kw, stride, padding, dilation)
                if found is not None:
                    a[m, k] = x[found]
        b = weight.permute(2, 3, 1, 0).reshape(k_count, c_out)  # B[k, n] = weight[n, c, r, s], k = (r, s, c)
        conv = torch.nn.functional.conv2d(x, weight, stride=stride, padding=padding, dilation=dilation)
        torch.testing.assert_close((a @ b).view(batch, g.oh, g.ow, c_out).permute(0, 3, 1, 2), conv)


def test_exercise_18_plans_rows_as_plan_rows_does():
    """Exercise 18's rows_per_program is tilelab.ops.rows.plan_rows for rows that fit one block: the same BLOCK, the
    same ROWS, the same default tile (TILE_ELEMENTS). A new rule in the library must reach the course."""
    from learning.solutions import triton_softmax_rows as solution
    from tilelab.ops import rows

    assert ref.ROW_TILE_ELEMENTS == rows.TILE_ELEMENTS
    rng = random.Random(18)
    row_counts = [1, 2, 3, 7, 8, 65, 127, 128, 255, 256, 1000, 4096, 262144] + [rng.randint(1, 300000)
                                                                                 for _ in range(20)]
    col_counts = [1, 7, 8, 65, 100, 128, 300, 1000, 1024, 4096, 5000, rows.MAX_BLOCK] + [
        rng.randint(1, rows.MAX_BLOCK) for _ in range(20)]
    for n_rows in row_counts:
        for n_cols in col_counts:
            for tile in (None, 1, 64, 1024, 16384):
                plan = rows.plan_rows(n_rows, n_cols, 2, tile_elements=tile)
                assert plan.one_block
                want = (plan.rows, plan.block)
                if tile is None:
                    assert ref.rows_per_program(n_rows, n_cols) == want, (n_rows, n_cols)
                    assert solution.rows_per_program(n_rows, n_cols) == want, (n_rows, n_cols)
                else:
                    assert ref.rows_per_program(n_rows, n_cols, tile) == want, (n_rows, n_cols, tile)
                    assert solution.rows_per_program(n_rows, n_cols, tile) == want, (n_rows, n_cols, tile)
    # The exercise's examples and the library's measured shape.
    assert ref.rows_per_program(262144, 128) == (32, 128) and ref.rows_per_program(3, 100) == (4, 128)
    assert ref.rows_per_program(1000, 300) == (8, 512) and ref.rows_per_program(5, 8192) == (1, 8192)
    assert rows.plan_rows(65, 100, 4).grid(65) == (ref.cdiv(65, 32),) == (3,)


def test_exercise_19_slices_k_as_split_k_slices_does():
    """Exercise 19's k_slices is tilelab.ops.matmul_hopper.split_k_slices, the rule the library's split-K kernels
    use: K not a multiple of BLOCK_K, more slices than steps (empty slices), one slice. A new rule in the library
    must reach the course."""
    from learning.solutions import triton_split_k as solution
    from tilelab.ops.matmul_hopper import split_k_slices

    rng = random.Random(19)
    ks = [1, 2, 15, 16, 17, 20, 31, 33, 40, 64, 100, 127, 128, 129, 1000, 4000, 4096, 11008]
    ks += [rng.randint(1, 20000) for _ in range(30)]
    for k in ks:
        for block_k in (16, 32, 64, 128, 256):
            for split_k in (1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 40):
                want = split_k_slices(k, block_k, split_k)
                assert ref.k_slices(k, block_k, split_k) == want, (k, block_k, split_k)
                assert solution.k_slices(k, block_k, split_k) == want, (k, block_k, split_k)
                assert len(want) == split_k and want[-1][1] == k and want[0][0] == 0
    # The exercise's examples, and the walkthrough's (python -m learning.explain splitk).
    assert ref.k_slices(100, 16, 4) == [(0, 32), (32, 64), (64, 96), (96, 100)]
    assert ref.k_slices(40, 16, 4) == [(0, 16), (16, 32), (32, 40), (40, 40)]
    assert ref.k_slices(4096, 128, 4) == [(0, 1024), (1024, 2048), (2048, 3072), (3072, 4096)]


def test_exercise_20_grid_is_at_most_the_library_s():
    """Exercise 20's persistent_grid is min(tiles, sms). The library's grid for one GEMM
    (tilelab.ops.matmul_hopper.persistent_grid, which spreads the tiles with balanced_programs) is the same where C
    has no more tiles than SMs; beyond that it may launch fewer programs, never fewer than BALANCED_MIN_FILL of the
    SMs, and its busiest program has no more tiles than with min(tiles, sms). Each program walks the list
    tiles_of_program gives, as the library's kernel does. A new rule in the library must reach the course."""
    from learning.solutions import triton_persistent as solution
    from tilelab.ops import matmul_hopper
    from tilelab.tuning import tile_count

    config = matmul_hopper.PERSISTENT_CANDIDATES[0]
    assert ref.PERSISTENT_TILE == (config.block_m, config.block_n)
    rng = random.Random(20)
    sides = SIDES + [rng.randint(1, 20000) for _ in range(30)]
    for m in sides:
        for n in sides:
            sms = rng.choice(SMS)
            tiles = tile_count(m, n, config)
            ours = ref.persistent_grid(m, n, config.block_m, config.block_n, sms)
            assert ref.tile_count(m, n, config.block_m, config.block_n) == tiles
            assert solution.persistent_grid(m, n, config.block_m, config.block_n, sms) == ours
            programs, axis_1 = matmul_hopper.persistent_grid(tiles, 1, sms, config)
            assert axis_1 == 1
            if tiles <= sms:
                assert programs == ours == tiles, (m, n, sms)
            else:
                assert matmul_hopper.BALANCED_MIN_FILL * sms <= programs <= ours == sms, (m, n, sms)
                assert ref.cdiv(tiles, programs) == ref.cdiv(tiles, ours), (m, n, sms)
    for tiles, programs in [(1, 1), (12, 5), (12, 4), (512, 132), (512, 128), (1376, 126), (4, 4)]:
        lists = [ref.tiles_of_program(pid, programs, tiles) for pid in range(programs)]
        assert lists == [solution.tiles_of_program(pid, programs, tiles) for pid in range(programs)]
        assert sorted(t for tiles_of_one in lists for t in tiles_of_one) == list(range(tiles))  # each tile once
        assert max(len(tiles_of_one) for tiles_of_one in lists) == ref.cdiv(tiles, programs)
    # The library's kernel walks the same list: tile start, start + programs, ... (start = its program id).
    kernel = (REPO_ROOT / "src" / "tilelab" / "kernels" / "matmul_persistent.py").read_text()
    assert "for tile in tl.range(start, tiles, programs," in kernel and "epilogue_tile += programs" in kernel
    # The exercise's and the workshop's numbers.
    assert ref.persistent_grid(4096, 4096, 128, 256, 132) == 132 and ref.persistent_grid(16, 4096, 64, 64, 132) == 64
    assert ref.tile_count(4096, 4096, 128, 256) == 512 and matmul_hopper.balanced_programs(512, 132) == 128
    assert ref.tiles_of_program(5, 132, 512) == [5, 137, 269, 401]
    assert ref.tiles_of_program(1, 5, 12) == [1, 6, 11] and ref.tiles_of_program(2, 5, 12) == [2, 7]
    assert matmul_hopper.INTERPRETER_SMS == 4
    assert inspect.signature(solution.launch_persistent).parameters["sms"].default == matmul_hopper.INTERPRETER_SMS


def test_exercise_21_division_magic_is_the_library_s():
    """Exercise 21's division_magic, the checker's own answer (reference.division_magic) and the solution are
    tilelab.ops.conv.division_magic, the rule the direct kernel's divide_by_constant uses. A new rule in the
    library must reach the course; the exercise's and the workshop's examples hold."""
    from learning.solutions import triton_depthwise as solution
    from tilelab.ops.conv import division_magic

    rng = random.Random(21)
    divisors = list(range(1, 3000)) + [2**k + d for k in range(12, 31) for d in (-1, 0, 1)] + [2**31 - 1]
    divisors += [rng.randint(1, 2**31 - 1) for _ in range(2000)]
    for divisor in divisors:
        want = division_magic(divisor)
        assert ref.division_magic(divisor) == want == solution.division_magic(divisor), divisor
        magic, shift = want
        assert magic < 2**32
        top = (2**31 - 1) // divisor  # the largest quotient below 2**31: the steps near it, and the last n
        for n in (0, divisor - 1, divisor, top * divisor - 1, top * divisor, 2**31 - 1):
            assert (n * magic) >> shift == n // divisor, (divisor, n)
    assert division_magic(1) == (2147483649, 31) and division_magic(7) == (2454267027, 34)
    assert division_magic(56) == (2454267027, 37) and (123456 * 2454267027) >> 37 == 2204 == 123456 // 56
    assert (56 * ((1 << 37) // 56)) >> 37 == 0  # without the +1, 56 // 56 comes out as 0 (workshop I10, part 4)


def test_occupancy_reference_is_the_library_s():
    """Exercise 22's answers (learning/checking/reference.py) against kernel-inspect's count for sm_90
    (tilelab.inspect.census.programs_per_sm), over every warp count and a sweep of registers and shared memory."""
    from tilelab.inspect import census

    for warps in (1, 2, 4, 8):
        for registers in range(1, 256, 3):
            for shared in (0, 1024, 16384, 50000, 100 * 1024, 116736, 232448):
                assert ref.programs_per_sm(registers, warps, shared) == census.programs_per_sm(
                    90, registers, warps, shared)["programs"], (registers, warps, shared)
    # The cap that fits n programs does fit them, and 8 more registers would not (below the 248 ceiling).
    for warps in (1, 2, 4, 8):
        for programs in range(1, 33):
            cap = ref.register_cap_for(programs, warps)
            assert cap % 8 == 0 and cap <= 248
            if cap >= 8:
                assert ref.programs_per_sm(cap, warps) >= min(programs, 64 // warps)
            if cap < 248:
                assert ref.SM_REGISTERS // ((cap + 8) * 32 * warps) < programs


def test_exercise_23_fits_what_the_library_reads_by_descriptor():
    """Exercise 23's descriptor_fits is the library's TMA test (`operand_layout(...).tma_ok`) on row-major 2-D
    operands of more than one row: the rows, starts and strides the exercise's checker uses, and more. The library
    also reads a column-major operand as its transpose and pads one row's unused stride; the exercise does not."""
    import torch

    from learning.checks import triton_descriptors as checks
    from learning.solutions import triton_descriptors as solution
    from tilelab.alignment import TMA_ALIGN
    from tilelab.ops.matmul_plan import operand_layout

    assert solution.TMA_ALIGN == checks.TMA_ALIGN == TMA_ALIGN
    for dtype in (torch.float16, torch.float32):
        for rows in (2, 7, 40):
            for cols in range(1, 70):
                for start in (0, 1, 8):
                    t = torch.zeros(rows, cols + start + 8, dtype=dtype)[:, start:start + cols]
                    library = operand_layout(t.unsqueeze(0)).tma_ok
                    assert solution.descriptor_fits(t) == library, (dtype, rows, cols, start, t.stride())
