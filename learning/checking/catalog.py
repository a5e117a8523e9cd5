"""The numbered sequence of exercises, in the order the course uses them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

LEARNING_DIR = Path(__file__).resolve().parent.parent
REPO_ROOT = LEARNING_DIR.parent


@dataclass(frozen=True)
class Exercise:
    name: str
    lesson: str  # "6" for lesson 6, "I3" for workshop I3
    kind: str  # "python" (standard library) or "triton"
    title: str
    functions: tuple[str, ...]
    # Its check watches the programs one at a time, which only Triton's interpreter can do. On a GPU the check runs
    # there first, then once more on the interpreter (runner.check_file), so a GPU never passes what the watch fails.
    watches_programs: bool = False

    @property
    def exercise_file(self) -> Path:
        return LEARNING_DIR / "exercises" / f"{self.name}.py"

    @property
    def solution_file(self) -> Path:
        return LEARNING_DIR / "solutions" / f"{self.name}.py"

    @property
    def check_module(self) -> str:
        return f"learning.checks.{self.name}"

    @property
    def default_timeout(self) -> float:
        # The Triton interpreter is slow and torch takes a couple of seconds to import.
        return 120.0 if self.kind == "triton" else 10.0


EXERCISES = [
    Exercise("offsets", "1", "python", "program offsets, cdiv and tail masks",
             ("cdiv", "program_offsets", "tail_mask", "add_vectors")),
    Exercise("strides", "2", "python", "storage, strides and transposed views",
             ("contiguous_strides", "element_offset", "transpose", "materialize")),
    Exercise("reduction", "3", "python", "pairwise reduction trees with neutral padding",
             ("next_power_of_two", "tree_reduce", "row_sums")),
    Exercise("softmax", "4", "python", "numerically stable softmax",
             ("softmax", "softmax_rows")),
    Exercise("rmsnorm", "5", "python", "RMSNorm with a residual add",
             ("rmsnorm", "residual_rmsnorm")),
    Exercise("matmul", "6", "python", "three loops, tile_ranges and tiled accumulation",
             ("matmul_loops", "tile_ranges", "matmul_tiled")),
    Exercise("grouping", "I3", "python", "the GROUP_M tile order",
             ("grouped_tile",)),
    Exercise("measurement", "7", "python", "speedup, GB/s, TFLOP/s, Amdahl and the roofline",
             ("speedup", "matmul_flops", "matmul_bytes", "tflops", "gbps", "amdahl", "roofline",
              "tile_intensity", "median")),
    Exercise("triton_add", "8", "triton", "a first Triton kernel: vector add",
             ("add_kernel", "launch_add")),
    Exercise("triton_row_sum", "8", "triton", "one program per row: row sums",
             ("row_sum_kernel", "launch_row_sum")),
    Exercise("triton_softmax", "8", "triton", "row softmax with masked lanes",
             ("softmax_kernel", "launch_softmax")),
    Exercise("triton_matmul", "8", "triton", "tiled, masked matrix multiplication",
             ("matmul_kernel", "launch_matmul")),
    Exercise("alignment", "9", "python", "what a row's start lets loads do: vector widths and sectors",
             ("proven_vector_bytes", "sectors_touched", "row_offsets", "worst_box_row_sectors",
              "aligned_row_stride", "class_shift")),
    Exercise("filling", "I5", "python", "enough tiles for the SMs: counts, waves and the largest tile that fills",
             ("tile_count", "waves", "busy_fraction", "choose_tiles")),
    Exercise("turns", "I6", "python", "two warp groups taking turns: ring positions, parity waits and when it pays",
             ("ring_position", "stage_and_parity", "wait_returns", "wait_is_right", "waves_in_tiles",
              "pingpong_pays_off")),
    Exercise("batches", "I7", "triton", "a batch as one list of tiles: grids for the SMs and a batched kernel",
             ("matrix_and_tile", "programs_per_matrix_grid", "per_matrix_grid_time", "busiest_share", "bmm_kernel",
              "launch_bmm")),
    Exercise("implicit_gemm", "6", "python", "a convolution as an implicit GEMM: sizes, A's entries, the folded "
             "batch norm", ("output_size", "gemm_sizes", "a_entry", "fold_batch_norm")),
    Exercise("triton_softmax_rows", "8", "triton", "several rows per program: a [ROWS, BLOCK] softmax tile",
             ("rows_per_program", "softmax_rows_kernel", "launch_softmax_rows")),
    Exercise("triton_split_k", "I8", "triton", "split-K: slices of K, partial tiles, and the last slice to arrive "
             "adds them up", ("k_slices", "splitk_kernel", "launch_split_k"), watches_programs=True),
    Exercise("triton_persistent", "I9", "triton", "a persistent matmul: one program per SM, each looping over its "
             "tiles", ("persistent_grid", "tiles_of_program", "persistent_matmul_kernel", "launch_persistent"),
             watches_programs=True),
    Exercise("triton_depthwise", "I10", "triton", "a depthwise convolution: filter rows, and pixels found by "
             "multiplication", ("division_magic", "depthwise_kernel", "launch_depthwise")),
    Exercise("occupancy", "I10", "python", "how many programs one SM holds at once, and the register cap that "
             "fits one more", ("registers_allocated", "programs_per_sm", "register_cap_for")),
    Exercise("triton_descriptors", "I11", "triton", "tiles by descriptor: TMA's rules, zeros past the edges "
             "instead of masks", ("descriptor_fits", "matmul_descriptor_kernel", "launch_descriptor_matmul")),
]

BY_NAME = {exercise.name: exercise for exercise in EXERCISES}


def number_of(exercise: Exercise) -> int:
    return EXERCISES.index(exercise) + 1


def find(name_or_number: str) -> Exercise | None:
    """Accept 'matmul', '6' (the sixth exercise) or 'matmul.py'."""
    key = name_or_number.strip().removesuffix(".py")
    if key.isdigit() and 1 <= int(key) <= len(EXERCISES):
        return EXERCISES[int(key) - 1]
    return BY_NAME.get(key)
