"""The checker's own answers, written independently of learning/solutions.

If a reference solution drifted, the checker would still catch it, because the two
are separate code. The walkthroughs (learning.explain) use these too.
"""

from __future__ import annotations

import math


def cdiv(n: int, block: int) -> int:
    return -(-n // block)


def tile_ranges(size: int, tile: int) -> list[tuple[int, int]]:
    return [(start, min(start + tile, size)) for start in range(0, size, tile)]


def matmul(a, b):
    inner, cols = len(b), len(b[0])
    return [[sum(row[k] * b[k][j] for k in range(inner)) for j in range(cols)] for row in a]


def matmul_k_slice(a, b, k_start: int, k_stop: int):
    """Only the products with k in [k_start, k_stop): what one K step contributes."""
    cols = len(b[0])
    return [[sum(row[k] * b[k][j] for k in range(k_start, k_stop)) for j in range(cols)] for row in a]


def matmul_last_k_tile(a, b, block_k: int):
    """What a tiled matmul returns when its accumulator is reset inside the K loop."""
    inner = len(b)
    last_start = (cdiv(inner, block_k) - 1) * block_k
    return matmul_k_slice(a, b, last_start, inner)


def contiguous_strides(shape) -> tuple[int, ...]:
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= size
    return tuple(reversed(strides))


def grouped_tile(pid: int, num_pid_m: int, num_pid_n: int, group_m: int) -> tuple[int, int]:
    tiles_per_group = group_m * num_pid_n
    group = pid // tiles_per_group
    first_m = group * group_m
    rows_in_group = min(num_pid_m - first_m, group_m)
    within = pid % tiles_per_group
    return first_m + within % rows_in_group, within // rows_in_group


def softmax(row):
    top = max(row)
    exps = [math.exp(x - top) for x in row]
    total = sum(exps)
    return [e / total for e in exps]


def rmsnorm(x, weight, eps):
    scale = 1.0 / math.sqrt(sum(v * v for v in x) / len(x) + eps)
    return [v * scale * w for v, w in zip(x, weight, strict=True)]


def next_power_of_two(n: int) -> int:
    return 1 << (n - 1).bit_length() if n > 1 else 1


def tree_levels(values, combine, neutral) -> list[list]:
    """Every level of a pairwise reduction tree, the input padded with `neutral` to a power of two."""
    level = list(values) + [neutral] * (next_power_of_two(len(values)) - len(values))
    levels = [level]
    while len(level) > 1:
        level = [combine(level[i], level[i + 1]) for i in range(0, len(level), 2)]
        levels.append(level)
    return levels


def proven_vector_bytes(row_bytes: int, max_bytes: int = 16) -> int:
    width = max_bytes
    while row_bytes % width:
        width //= 2
    return width


def sectors_touched(start: int, length: int, sector: int = 32) -> int:
    return (start + length - 1) // sector - start // sector + 1


def row_offsets(row_bytes: int, unit: int) -> list[int]:
    return sorted({r * row_bytes % unit for r in range(unit)})


def aligned_row_stride(width: int, element_size: int) -> int:
    """tilelab.alignment.output_row_stride, for width >= 1 (standard library only, as every Python exercise's
    check is; tests/unit/test_aligned_allocation.py keeps the two equal)."""
    unit = 128 if width * element_size >= 128 else 16
    per_unit = unit // element_size
    return -(-width // per_unit) * per_unit


def class_shift(row_bytes: int, classes: int, row_class: int, element_size: int) -> int:
    """What the descriptor and persistent kernels compute for a class (`class_shift` in tilelab.kernels.matmul)."""
    return row_class * row_bytes % (16 * classes) // element_size


# Exercise 14 (workshop I5): enough tiles for the SMs.
H200_SMS = 132
# The (block_m, block_n) of tilelab.ops.matmul_registers.CONFIGS, in their order (largest first);
# tests/learning/test_learning_reference.py keeps the two equal.
REGISTERS_TILES = [(256, 128), (256, 64), (128, 128), (128, 64), (64, 64)]


def tile_count(m: int, n: int, block_m: int, block_n: int) -> int:
    return cdiv(m, block_m) * cdiv(n, block_n)


def waves(tiles: int, sms: int) -> int:
    return cdiv(tiles, sms)


def busy_fraction(tiles: int, sms: int) -> float:
    return tiles / (waves(tiles, sms) * sms)


def choose_tiles(m: int, n: int, sms: int, candidates, full_fill: float = 0.6) -> tuple[int, int]:
    """tilelab.ops.matmul_registers.choose_config on (block_m, block_n) pairs, for m, n >= 1 (standard library
    only; tests/learning/test_learning_reference.py keeps the two equal)."""
    rows, cols = max(64, next_power_of_two(m)), max(64, next_power_of_two(n))
    fitting = [(bm, bn) for bm, bn in candidates if bm <= rows and bn <= cols]
    for bm, bn in fitting:
        if tile_count(m, n, bm, bn) >= full_fill * sms:
            return (bm, bn)
    return fitting[-1] if fitting else tuple(candidates[-1])


# Exercise 15 (workshop I6): two warp groups taking turns on a ring of stages.
# tests/learning/test_learning_reference.py keeps waves_in_tiles and pingpong_pays_off equal to
# tilelab.ops.matmul_pingpong's.
PINGPONG_TILE = (128, 128)
PERSISTENT_TILE = (128, 256)
PINGPONG_MAX_K = 2048


def ring_position(tile: int, k: int, k_steps: int) -> int:
    return tile * k_steps + k


def stage_and_parity(position: int, stages: int) -> tuple[int, int]:
    return position % stages, (position // stages) % 2


def wait_returns(completed: int, parity: int) -> bool:
    return completed % 2 != parity


def wait_is_right(completed: int, wanted: int) -> bool:
    return wanted <= completed <= wanted + 1


def waves_in_tiles(m: int, n: int, block_m: int, block_n: int, sms: int) -> int:
    return cdiv(tile_count(m, n, block_m, block_n), sms) * (block_m * block_n // (128 * 128))


def pingpong_pays_off(m: int, n: int, k: int, sms: int, max_k: int = PINGPONG_MAX_K) -> bool:
    return k <= max_k or waves_in_tiles(m, n, *PINGPONG_TILE, sms) < waves_in_tiles(m, n, *PERSISTENT_TILE, sms)


# Exercise 16 (workshop I7): a batch of products as one list of tiles.
# tests/learning/test_learning_reference.py keeps busiest_share equal to the share the library's persistent grids
# give the busiest program (tilelab.ops.matmul_pingpong.waves_in_tiles on its 128x128 tiles).


def matrix_and_tile(tile: int, tiles_per_matrix: int) -> tuple[int, int]:
    return tile // tiles_per_matrix, tile % tiles_per_matrix


def programs_per_matrix_grid(batch: int, sms: int) -> int:
    return batch * cdiv(sms, batch)


def per_matrix_grid_time(batch: int, tiles_per_matrix: int, sms: int) -> int:
    programs = min(cdiv(sms, batch), tiles_per_matrix)
    return cdiv(batch * programs, sms) * cdiv(tiles_per_matrix, programs)


def busiest_share(batch: int, tiles_per_matrix: int, sms: int) -> int:
    tiles = batch * tiles_per_matrix
    return cdiv(tiles, min(sms, tiles))


# -- exercise 17: a convolution as an implicit GEMM (the library's own geometry: tilelab.ops.conv) -----------


def conv_output_size(size: int, kernel: int, stride: int = 1, padding: int = 0, dilation: int = 1) -> int:
    return (size + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1


def conv_a_entry(m, k, batch, c_in, h, w, kh, kw, stride=1, padding=0, dilation=1, *, channels_outer=False):
    """(n, c, ih, iw) that row m, column k of the implicit GEMM's A reads, or None in the padding. The kernel's
    K order is taps outermost (k = (r * kw + s) * c_in + c); channels_outer gives unfold's (c, r, s) instead."""
    oh_count = conv_output_size(h, kh, stride, padding, dilation)
    ow_count = conv_output_size(w, kw, stride, padding, dilation)
    n, rest = divmod(m, oh_count * ow_count)
    oh, ow = divmod(rest, ow_count)
    if channels_outer:
        c, tap = divmod(k, kh * kw)
    else:
        tap, c = divmod(k, c_in)
    r, s = divmod(tap, kw)
    ih, iw = oh * stride - padding + r * dilation, ow * stride - padding + s * dilation
    return (n, c, ih, iw) if 0 <= ih < h and 0 <= iw < w else None


# -- exercise 18: several rows per program (the library's plan: tilelab.ops.rows.plan_rows) -------------------

ROW_TILE_ELEMENTS = 4096  # tilelab.ops.rows.TILE_ELEMENTS


def rows_per_program(n_rows: int, n_cols: int, tile_elements: int = ROW_TILE_ELEMENTS) -> tuple[int, int]:
    """(ROWS, BLOCK) for rows that fit one block: BLOCK the row padded to a power of two, ROWS as many rows as
    fill tile_elements (at least 1), but no more than the rows there are, rounded up to a power of two."""
    block = next_power_of_two(n_cols)
    return min(max(1, tile_elements // block), next_power_of_two(n_rows)), block


# -- exercise 19: split-K (the library's slicing rule: tilelab.ops.matmul_hopper.split_k_slices) ---------------


def k_slices(k: int, block_k: int, split_k: int) -> list[tuple[int, int]]:
    """[start, stop) of each of split_k slices of K: whole BLOCK_K steps, ceil(steps / split_k) of them per slice,
    so the last slices may be shorter, or empty ((k, k))."""
    per = cdiv(cdiv(k, block_k), split_k) * block_k
    return [(min(s * per, k), min((s + 1) * per, k)) for s in range(split_k)]


# -- exercise 20: a persistent matmul ---------------------------------------------------------------------------
# The library spreads the tiles more evenly (tilelab.ops.matmul_hopper.balanced_programs): never more programs than
# min(tiles, sms), and the busiest program no busier. tests/learning/test_learning_reference.py keeps that so.


def persistent_grid(m: int, n: int, block_m: int, block_n: int, sms: int) -> int:
    """Programs of a persistent grid: one per SM, but no more than there are tiles (and at least one)."""
    return max(1, min(tile_count(m, n, block_m, block_n), sms))


def tiles_of_program(pid: int, programs: int, tiles: int) -> list[int]:
    """The tiles program pid computes, in order: pid, pid + programs, ... below tiles (one wave apart)."""
    return list(range(pid, tiles, programs))


# -- exercise 21: a depthwise convolution (the library's rule: tilelab.ops.conv.division_magic) ---------------


def division_magic(divisor: int) -> tuple[int, int]:
    """(magic, shift) with n // divisor == (n * magic) >> shift for 0 <= n < 2**31: shift = 31 + ceil(log2(d)),
    magic = floor(2**shift / d) + 1. tests/learning/test_learning_reference.py keeps it the library's."""
    shift = 31 + (divisor - 1).bit_length()
    return (1 << shift) // divisor + 1, shift


# -- exercise 22: programs per SM (the library's rule: tilelab.inspect.census.programs_per_sm, for sm_90) -----

SM_REGISTERS = 65536
SM_WARPS = 64
SM_PROGRAMS = 32
SM_SHARED_BYTES = 228 * 1024
SHARED_RESERVED_BYTES = 1024  # the driver's own, per program
PROGRAM_SHARED_LIMIT = 227 * 1024  # the most one program may ask for (opt-in): not the SM's whole 228 KB
REGISTER_GRANULE = 8
MAX_REGISTERS = 255


def registers_allocated(registers: int) -> int:
    return cdiv(registers, REGISTER_GRANULE) * REGISTER_GRANULE


def programs_per_sm(registers: int, num_warps: int, shared_bytes: int = 0) -> int:
    """tests/learning/test_learning_reference.py keeps it the library's."""
    return min(SM_REGISTERS // (registers_allocated(registers) * 32 * num_warps), SM_WARPS // num_warps,
               SM_PROGRAMS, SM_SHARED_BYTES // (shared_bytes + SHARED_RESERVED_BYTES))


def register_cap_for(programs: int, num_warps: int) -> int:
    """The largest maxnreg (a multiple of 8, at most 255 rounded down to 248) at which `programs` programs of
    num_warps warps fit in the register file."""
    return min(SM_REGISTERS // (programs * 32 * num_warps) // REGISTER_GRANULE * REGISTER_GRANULE,
               MAX_REGISTERS // REGISTER_GRANULE * REGISTER_GRANULE)
