"""Plausible wrong answers must fail, and the message must point at the mistake."""

import pytest

from learning.checking import catalog
from learning.checking.runner import GPU_ONLY, check_file
from learning.checking.status import Status

from .helpers import WRONG_ANSWERS

# (wrong-answer file, exercise, expected status, phrases the first failing message must contain)
CASES = [
    ("matmul_acc_reset", "matmul", Status.FAIL,
     ["C[0,0] is 33, expected 58: is the accumulator reset inside the K loop?"]),
    ("matmul_aliased_rows", "matmul", Status.FAIL, ["same list object", "[[0.0] * N for _ in range(M)]"]),
    ("matmul_zeros", "matmul", Status.FAIL, ["C[0,0] is 0, expected 58", "every entry is 0"]),
    ("matmul_tiles_unclipped", "matmul", Status.FAIL,
     ["tile_ranges(7, 3) returned [(0, 3), (3, 6), (6, 9)]", "min(start + tile, size)"]),
    ("offsets_cdiv_floor", "offsets", Status.FAIL, ["cdiv(1, 4) returned 0, expected 1", "round up"]),
    ("offsets_missing_mask", "offsets", Status.FAIL,
     ["stray store to out at offset", "past the end", "program", "lane", "masked"]),
    ("offsets_hang", "offsets", Status.ERROR, ["time limit", "in cdiv, case 'cdiv("]),
    ("strides_swapped", "strides", Status.FAIL,
     ["contiguous_strides((2, 3)) returned (1, 2), expected (3, 1)", "column-major"]),
    ("reduction_zero_padding", "reduction", Status.FAIL, ["returned 0, expected -1.5", "neutral element"]),
    ("softmax_unstable", "softmax", Status.FAIL, ["overflowed", "subtract the row's maximum"]),
    ("grouping_no_partial_group", "grouping", Status.FAIL, ["outside the", "min(GROUP_M, num_pid_m - first_m)"]),
    ("triton_add_missing_mask", "triton_add", Status.FAIL,
     ["stray store", "past the end", "program 0, lane 1", "masked"]),
    ("triton_add_past_end", "triton_add", Status.FAIL, ["stray store", "1 past the end", "offsets < n"]),
    ("triton_add_floor_grid", "triton_add", Status.FAIL, ["never written", "triton.cdiv", "rounded down"]),
    ("triton_row_sum_unmasked_load", "triton_row_sum", Status.FAIL, ["is nan", "mask the load", "other=0.0"]),
    ("triton_row_sum_assumed_stride", "triton_row_sum", Status.FAIL, ["row 0 is right", "x.stride(0)"]),
    ("triton_softmax_other_zero", "triton_softmax", Status.FAIL, ["-inf", "other=0"]),
    ("triton_matmul_acc_reset", "triton_matmul", Status.FAIL, ["is the accumulator reset inside the K loop?"]),
    ("triton_matmul_no_k_mask", "triton_matmul", Status.FAIL, ["is nan", "mask K"]),
    ("triton_matmul_swapped_strides", "triton_matmul", Status.FAIL, ["A @ B.T", "strides are swapped"]),
    ("triton_matmul_blocks_not_constexpr", "triton_matmul", Status.ERROR,
     ["arange's arguments must be of type tl.constexpr"]),
    ("alignment_sectors_from_length", "alignment", Status.FAIL,
     ["sectors_touched(16, 128, sector=32) returned 4, expected 5", "can touch one more"]),
    ("alignment_stride_in_elements", "alignment", Status.FAIL,
     ["aligned_row_stride(3000, 2) returned 3072, expected 3008", "128 is a count of bytes, not of elements"]),
    ("alignment_class_shift_in_bytes", "alignment", Status.FAIL,
     ["class_shift(2000, 8, 1, 2) returned 80, expected 40", "the shift in bytes"]),
    ("filling_floor_tiles", "filling", Status.FAIL,
     ["tile_count(1000, 1000, 128, 64) returned 105, expected 128", "a partial tile is still a tile"]),
    ("filling_busy_per_sm", "filling", Status.FAIL,
     ["busy_fraction(172, 132) returned 1.30303, expected 0.651515", "tiles / (waves * sms)"]),
    ("filling_no_padding_rule", "filling", Status.FAIL,
     ["choose_tiles(128, 11008, 132, [(256, 128), (256, 64), (128, 128), (128, 64), (64, 64)]) returned (256, 128), "
      "expected (128, 128)", "mostly padding"]),
    ("filling_smallest_that_fills", "filling", Status.FAIL,
     ["returned (64, 64), expected (256, 128)", "the smallest tile that fills the SMs; take the largest"]),
    ("occupancy_unrounded_registers", "occupancy", Status.FAIL,
     ["programs_per_sm(73, 2, 0) returned 14, expected 12", "registers are set aside 8 at a time"]),
    ("occupancy_no_program_cap", "occupancy", Status.FAIL,
     ["programs_per_sm(16, 1, 0) returned 64, expected 32", "at most 32 programs"]),
    ("occupancy_no_shared_reserve", "occupancy", Status.FAIL,
     ["programs_per_sm(32, 4, 116736) returned 2, expected 1", "keeps 1 KB (1024 bytes) of shared memory"]),
    ("occupancy_cap_rounded_up", "occupancy", Status.FAIL,
     ["register_cap_for(3, 4) returned 176, expected 168", "round the share down, not up"]),
    ("turns_parity_of_position", "turns", Status.FAIL,
     ["stage_and_parity(5, 6) returned (5, 1), expected (5, 0)", "the parity is the round's"]),
    ("turns_trusts_any_parity_match", "turns", Status.FAIL,
     ["wait_is_right(0, 2) returned True, expected False", "may return on round 0's data"]),
    ("turns_floor_share", "turns", Status.FAIL,
     ["returned 31, expected 32", "the rounded-up share"]),
    ("turns_short_k_only", "turns", Status.FAIL,
     ["pingpong_pays_off(4096, 11008, 4096, 132) returned False, expected True", "a long K can still pay off"]),
    ("triton_matmul_unmasked_store", "triton_matmul", Status.FAIL,
     ["stray store", "outside the", "program (pid_m=", "lane (", "masked on both"]),
    ("batches_swapped_divmod", "batches", Status.FAIL,
     ["matrix_and_tile(5, 6) returned (5, 0), expected (0, 5)", "the matrix is the quotient"]),
    ("batches_no_rounds", "batches", Status.FAIL,
     ["per_matrix_grid_time(8, 512, 132) returned 31, expected 62", "136 programs on 132 SMs run in 2 rounds",
      "wait for a free SM"]),
    ("batches_a_stride_for_b", "batches", Status.FAIL,
     ["C[1,0,0] is nan", "matrix 0 is right, but matrix 1 read memory outside its A and B",
      "stride_bb = b.stride(0)"]),
    ("implicit_gemm_channels_outer", "implicit_gemm", Status.FAIL,
     ["expected (1, 29, 3, 27)", "that is unfold's order", "k = (r * KW + s) * C_in + c"]),
    ("implicit_gemm_undilated_span", "implicit_gemm", Status.FAIL,
     ["output_size(12, 3, 1, 2, 2) returned 14, expected 12", "dilation * (kernel - 1) + 1"]),
    ("implicit_gemm_unscaled_bias", "implicit_gemm", Status.FAIL,
     ["(shift) returned -0.404701, expected -0.366025", "(bias - mean) * scale"]),
    ("triton_softmax_rows_uncapped", "triton_softmax_rows", Status.FAIL,
     ["rows_per_program(1, 1) returned (4096, 1), expected (1, 1)", "cap ROWS at the next power of two of n_rows"]),
    ("triton_softmax_rows_no_owned_mask", "triton_softmax_rows", Status.FAIL,
     ["stray store", "at out[7,0] (outside the 7x1 output)", "program 0, tile row 7, a spare row",
      "owned = rows < n_rows"]),
    ("triton_softmax_rows_axis_0", "triton_softmax_rows", Status.FAIL,
     ["each column of the program's tile sums to 1, not each row", "tl.max(x, axis=1)", "[:, None]"]),
    ("triton_softmax_rows_other_zero", "triton_softmax_rows", Status.FAIL,
     ["padded columns must load -inf", "with other=0"]),
    ("triton_softmax_rows_grid_per_row", "triton_softmax_rows", Status.FAIL,
     ["launched 7 programs for 7 rows with ROWS=8", "triton.cdiv(n_rows, ROWS) = 1 program"]),
    ("triton_softmax_rows_one_row", "triton_softmax_rows", Status.FAIL,
     ["launched with ROWS=1, one row per program", "rows_per_program(7, 1) is (8, 1)"]),
    ("batches_store_into_matrix_0", "batches", Status.FAIL,
     ["C[1,0,0] never written, and only matrix 0 was", "every program stored into matrix 0",
      "move C's pointer by matrix * stride_cb"]),
    ("triton_split_k_floor_slices", "triton_split_k", Status.FAIL,
     ["k_slices(100, 16, 4) returned [(0, 16), (16, 32), (32, 48), (48, 64)], expected [(0, 32), (32, 64), (64, 96), "
      "(96, 100)]", "ceil(7 / 4) = 2 step(s) per slice", "K's last 36 belong to no slice"]),
    ("triton_split_k_kernel_drops_tail", "triton_split_k", Status.FAIL,
     ["plane 0[0,0] is", "A[:, 0:32] @ B[0:32, :]", "Each slice got floor(7 / 4) step(s) of 16",
      "K's last 36 belong to no slice"]),
    ("triton_split_k_no_split", "triton_split_k", Status.FAIL,
     ["launched a grid of (12, 1) with SPLIT_K=1 for split_k=4", "one program per tile walks all of K alone",
      "(tiles, split_k) = (12, 4)"]),
    ("triton_split_k_no_wait", "triton_split_k", Status.FAIL,
     ["C's tile 0 (rows 0-31, columns 0-31) was written by program (tile 0, slice 0) when 1 of its 4 slices had "
      "arrived", "the program whose tl.atomic_add returns SPLIT_K - 1", "either it never counted"]),
    ("triton_split_k_no_reset", "triton_split_k", Status.FAIL,
     ["counters[0] is 4 after the call, expected 0", "tl.atomic_xchg(counter, 0)"]),
    ("triton_split_k_last_by_index", "triton_split_k", Status.FAIL,
     ["tile 0's slices arriving 3, 2, 1, 0", "written by program (tile 0, slice 3) when 1 of its 4 slices had arrived",
      "on a GPU it may arrive first: only the counter knows who is last"]),
    ("triton_split_k_own_first", "triton_split_k", Status.FAIL,
     ["plane 0 + plane 1 + ... + plane 3, added in float32 in that order, is",
      "starts with the last arriver's own partial (slice 3)", "slice order"]),
    ("triton_split_k_float_atomics", "triton_split_k", Status.FAIL,
     ["out was written before splitk_kernel ran (out[0,0] holds 0)", "float atomics", "workspace plane"]),
    ("triton_split_k_one_counter", "triton_split_k", Status.FAIL,
     ["C's tile 3 (rows 0-31, columns 96-126) was written by program (tile 3, slice 2) when 1 of its 4 slices had "
      "arrived", "changed counters [0], not counters[3]", "counters_ptr + tile"]),
    ("triton_split_k_off_by_one", "triton_split_k", Status.FAIL,
     ["C[0,0] never written (tile 0), and counters[0] is 4", "the last to arrive sees SPLIT_K - 1"]),
    ("triton_persistent_sms_programs", "triton_persistent", Status.FAIL,
     ["persistent_grid(16, 4096, 64, 64, 132) returned 132, expected 64",
      "68 of them would find their list of tiles empty", "min(tiles, sms)"]),
    ("triton_persistent_chunks", "triton_persistent", Status.FAIL,
     ["tiles_of_program(0, 4, 12) returned [0, 1, 2], expected [0, 4, 8]", "a contiguous share",
      "one wave apart", "neighbouring tiles"]),
    ("triton_persistent_tile_per_program", "triton_persistent", Status.FAIL,
     ["launched a grid of (140,): one program per tile, 140 programs for sms=6", "exercise 12's launch",
      "(min(tiles, sms),) = (min(140, 6),) = (6,)"]),
    ("triton_persistent_h200_sms", "triton_persistent", Status.FAIL,
     ["launched a grid of (132,) for sms=6", "132 is the H200's SM count", "with the sms it is given"]),
    ("triton_persistent_step_one", "triton_persistent", Status.FAIL,
     ["program 0 wrote tiles 0, 1, 2, 3, 4, 5, 6, 7, ... (140 in all)", "programs redo each other's tiles",
      "range(pid, tiles, tl.num_programs(0))"]),
    ("triton_persistent_floor_waves", "triton_persistent", Status.FAIL,
     ["C[80,304] never written", "Tiles 138, 139 were never written", "23 whole wave(s) and 2 tile(s) more",
      "tiles // programs = 23 steps rounds it away", "range(pid, tiles, programs)"]),
    ("triton_persistent_acc_once", "triton_persistent", Status.FAIL,
     ["tile 8 (at tile row 0, column 2), number 2 in program 2's list", "Every program's first tile is right",
      "the accumulator carried over from tile to tile", "inside the tile loop"]),
    ("triton_persistent_row_major", "triton_persistent", Status.FAIL,
     ["program 0 wrote the tiles at (tile row, column) (0, 0), (3, 0),", "placed in row-major order",
      "In GROUP_M=4 order", "grouped_tile", "C still comes out right"]),
    ("triton_depthwise_floor_magic", "triton_depthwise", Status.FAIL,
     ["division_magic(7) returned (2454267026, 34): at n = 7, (n * magic) >> shift is 0, but n // 7 is 1",
      "rounded down", "floor(2**shift / divisor) + 1"]),
    ("triton_depthwise_divides", "triton_depthwise", Status.FAIL,
     ["with OW_MAGIC one too small", "y did not change: the kernel never used OW_MAGIC", "divides by OW itself",
      "rows = (pixels * OW_MAGIC) >> OW_SHIFT"]),
    ("triton_depthwise_ow_by_modulo", "triton_depthwise", Status.FAIL,
     ["with OW_MAGIC one too small", "y changed, but not as", "is there still a // or % by OW?"]),
    ("triton_depthwise_acc_per_row", "triton_depthwise", Status.FAIL,
     ["7 channels, one part-filled channel tile", "y holds the filter's last row only",
      "is the accumulator made inside the loop over rows?"]),
    ("triton_depthwise_no_channel_mask", "triton_depthwise", Status.FAIL,
     ["stray store", "at y[0,7,0,0], channel 7 of a 7-channel output", "channel lane 7 of its last channel tile",
      "masked with channels < C"]),
    ("triton_descriptors_rounded_shape", "triton_descriptors", Status.FAIL,
     ["a_desc has shape [16, 16] (rounded up to whole tiles), but a is 1x1", "give the descriptor a's own shape",
      "Past it a load returns zeros"]),
    ("triton_descriptors_tile_coordinates", "triton_descriptors", Status.FAIL,
     ["pid_m * BLOCK_M", "pid_n * BLOCK_N"]),
    ("triton_descriptors_acc_reset", "triton_descriptors", Status.FAIL,
     ["C holds the last K step's product only", "accumulator made inside the K loop"]),
    ("triton_descriptors_fits_ignores_start", "triton_descriptors", Status.FAIL,
     ["starting 2 bytes past a 16-byte boundary", "returned True, but TMA cannot read it",
      "the start must be a multiple of 16 bytes too"]),
    ("triton_descriptors_no_refusal", "triton_descriptors", Status.FAIL,
     ["a is torch.float16 (37, 45) with strides (45, 1), which TMA cannot read", "TensorDescriptor's own assert",
      "raise a ValueError that names a"]),
]


# Mistakes a learner walking the course made (thirty-second session), each with its own message.
CASES += [
    ("measurement_roofline_gflops", "measurement", Status.FAIL,
     ["roofline(0.01, 100, 2000) returned 20, expected 0.02", "divide by 1000 for TFLOP/s"]),
    ("measurement_median_upper_middle", "measurement", Status.FAIL,
     ["median returned 3, expected 2.5", "two middle values: average them"]),
    ("reduction_combine_swapped", "reduction", Status.FAIL, ["is 'ba', expected 'ab'", "combine(left, right)"]),
    ("triton_row_sum_other_neg_inf", "triton_row_sum", Status.FAIL, ["is -inf", "other=0.0"]),
    ("alignment_sectors_end_exclusive", "alignment", Status.FAIL,
     ["returned 5, expected 4", "the last byte is start + length - 1"]),
    ("triton_softmax_x_stride_for_out", "triton_softmax", Status.FAIL,
     ["stray store", "if out's rows are x.stride(0) = 258 apart", "pass out's own row stride"]),
    ("turns_whole_tiles_only", "turns", Status.FAIL,
     ["returned 0, expected 1", "a tile that hangs over C's edge is still a tile"]),
    ("occupancy_program_limit_as_sm", "occupancy", Status.FAIL,
     ["programs_per_sm(1, 1, 232448) returned 0, expected 1", "an SM has 228 KB (233472 bytes)"]),
    ("triton_descriptors_stride_in_elements", "triton_descriptors", Status.ERROR,
     ["returned False, but TMA can read it", "the 16 is bytes", "stride(0) * element_size()"]),
    ("triton_depthwise_magic_ceil", "triton_depthwise", Status.FAIL,
     ["2**31 / 1 is exact (1 is a power of two)", "floor(2**shift / divisor) + 1 for every divisor"]),
]

# Code Triton's interpreter runs but its compiler refuses: on the interpreter the checker compiles the launches for
# sm_90 (learning/checking/gpu_compile.py); on a GPU the launch itself compiles. Both name the rule and the line.
CASES += [
    ("triton_persistent_while_break", "triton_persistent", Status.ERROR,
     ["does not compile for", "UnsupportedLanguageConstruct: unsupported AST node type: Break",
      "triton_persistent_while_break.py, line 31: break"]),
]


def _first_problem(result) -> str:
    if result.message:
        return result.message
    return next(p["message"] for p in result.parts if p["status"] != Status.PASS.value)


# Mistakes that stop the kernel on a GPU, where Triton's interpreter lets the checker name them (call XXXXXXXXX):
# a TMA copy that starts part-way into 16 bytes is an assert on the interpreter and an illegal instruction on an H200.
ON_A_GPU = {"triton_descriptors_tile_coordinates": (Status.ERROR, ["an illegal instruction was encountered"])}


def _on_a_gpu() -> bool:
    import torch

    return torch.cuda.is_available()


@pytest.mark.parametrize(("module", "exercise_name", "status", "phrases"), CASES, ids=[c[0] for c in CASES])
def test_wrong_answer_is_caught(module, exercise_name, status, phrases):
    exercise = catalog.BY_NAME[exercise_name]
    timeout = 3 if "time limit" in phrases else None  # the cases that hang: no need to wait 120 s
    if module in ON_A_GPU and _on_a_gpu():
        status, phrases = ON_A_GPU[module]
    result = check_file(exercise, WRONG_ANSWERS / f"{module}.py", seed=1234, timeout=timeout)
    if GPU_ONLY in result.message:  # a GPU whose Triton interpreter cannot run (numpy >= 2.4): the watch is missing
        pytest.skip(result.message)
    assert result.status == status, (result.message, result.parts)
    message = _first_problem(result)
    for phrase in phrases:
        assert phrase in message, f"{phrase!r} not in {message!r}"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_acc_reset_is_caught_whatever_the_seed(seed):
    result = check_file(catalog.BY_NAME["matmul"], WRONG_ANSWERS / "matmul_acc_reset.py", seed=seed)
    assert result.status == Status.FAIL


def test_every_wrong_answer_file_is_used():
    files = {p.stem for p in WRONG_ANSWERS.glob("*.py") if p.stem != "__init__"}
    assert files == {c[0] for c in CASES}
