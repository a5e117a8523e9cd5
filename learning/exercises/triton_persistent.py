"""Exercise 20 (workshop I9, after triton_matmul): a persistent matmul, one program per SM looping over tiles.

Your triton_matmul launches one program per tile of C. At 4096 x 4096 x 4096 in 128 x 256 tiles, C has 32 x 16 = 512
tiles, so that is 512 programs for the H200's 132 SMs. Each SM runs about four of them, one after the other, and
every one starts from scratch: it sets itself up, waits for its first blocks of A and B before it can multiply at
all, and ends by storing its tile while no load is in flight. That is four starts and four ends on most SMs.

A persistent kernel launches only as many programs as it has SMs to fill, min(tiles, sms): 132 here. Each program
stays on its SM and loops: program pid computes tiles pid, pid + 132, pid + 264, ..., one wave apart, each placed in
GROUP_M order (workshop I3) and each with a fresh accumulator. What a program sets up, it sets up once, and tilelab's
`matmul_persistent_kernel` (src/tilelab/kernels/matmul_persistent.py) loads the next tile's first blocks while it is
still storing this one. In one kernel-bench run on the H200 (results/h200-matmul-float16-rounds.json, fp16, the same
128 x 256 x 64 tiles), one program per tile (`tilelab-descriptor`) ran 4096^3 at 735 TFLOP/s and the persistent
kernel at 754; at 8192 x 8192 x 1024, where a tile's K loop is only 16 steps long, 622 against 685.

Yours is simpler: exercise 12's kernel, float16 A and B, a float32 C, pointer loads, inside a loop over tiles.
Write the four parts in order, then run:  python -m learning.check triton_persistent

1. persistent_grid: how many programs to launch.
2. tiles_of_program: which tiles program pid computes, in which order.
3. persistent_matmul_kernel: the loop over this program's tiles, exercise 12's tile inside it.
4. launch_persistent: one launch of persistent_grid(...) programs.

The checker runs your kernel on Triton's interpreter, which runs one program at a time, and it looks at C between
programs. So it knows which tiles each program wrote: a program that writes another program's tile fails even when C
comes out right in the end. What it cannot see is speed: whether one tile's stores overlap the next tile's loads is
for a GPU to show (part 6 of learning/workshops/I9_one_program_per_sm.md).
"""

import torch
import triton
import triton.language as tl


def persistent_grid(m, n, block_m, block_n, sms):
    """How many programs a persistent launch has: one per SM, but no more than C has tiles. All arguments >= 1.

    C (m x n) in block_m x block_n tiles has cdiv(m, block_m) * cdiv(n, block_n) of them (exercise 14's tile_count).
    persistent_grid(4096, 4096, 128, 256, 132) == 132   (512 tiles: each program takes 3 or 4)
    persistent_grid(16, 4096, 64, 64, 132) == 64        (64 tiles, one per program: workshop I8's skinny product)
    """
    raise NotImplementedError("persistent_grid: count the tiles (rounded up), then one program per SM at most")


def tiles_of_program(pid, programs, tiles):
    """The tiles program pid computes, in the order it computes them, when `programs` programs share tiles 0 to
    tiles - 1: pid, pid + programs, pid + 2 * programs, ..., all below tiles. 0 <= pid < programs.

    tiles_of_program(1, 5, 12) == [1, 6, 11]
    tiles_of_program(2, 5, 12) == [2, 7]       (12 tiles on 5 programs: two whole waves, then 2 tiles more)
    tiles_of_program(5, 132, 512) == [5, 137, 269, 401]
    """
    raise NotImplementedError("tiles_of_program: start at pid, one wave (programs tiles) apart, stop below tiles")


@triton.jit
def persistent_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                             stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                             GROUP_M: tl.constexpr):
    """Program pid = tl.program_id(0), one of tl.num_programs(0), computes tiles pid, pid + programs, ... of C.

    Tile t sits where GROUP_M order puts it: (pid_m, pid_n) = grouped_tile(t, cdiv(M, BLOCK_M), cdiv(N, BLOCK_N),
    GROUP_M), the rule you wrote in learning/exercises/grouping.py (workshop I3). A and B are float16, C is float32,
    and any of them may be a strided view."""
    # TODO: pid, programs = tl.num_programs(0), and how many tiles C has: tiles_m * tiles_n (tl.cdiv).
    # TODO: loop over this program's tiles, tiles_of_program's list: for tile in range(pid, tiles, programs).
    # TODO: inside the loop, the tile's (pid_m, pid_n): your grouped_tile, in Triton (tl.minimum for min; the
    #       last group of tile rows may be shorter than GROUP_M).
    # TODO: then exercise 12's tile: its rows and cols, a float32 accumulator made here, for this tile alone, the
    #       K loop of masked loads (other=0.0) and tl.dot, and one store of the tile masked on M and N.
    pass


def launch_persistent(a, b, sms=4, out=None, block_m=32, block_n=32, block_k=32, group_m=8):
    """C = a @ b in float32 for 2-D float16 a (M x K) and b (K x N), either possibly a strided view.

    Writes into `out` (float32, M x N, any strides) when it is given, else into a new tensor (torch.empty), and
    returns the tensor it wrote. One launch of persistent_matmul_kernel on the 1-D grid
    (persistent_grid(M, N, block_m, block_n, sms),), with the block sizes as BLOCK_M, BLOCK_N, BLOCK_K (at least 16:
    tl.dot needs it) and GROUP_M=group_m.

    sms is how many SMs the grid fills: 132 on an H200 (torch.cuda.get_device_properties(0).multi_processor_count).
    The default, 4, is what tilelab's own persistent grid takes on the interpreter (INTERPRETER_SMS, which
    `device_sms` in src/tilelab/ops/matmul_hopper.py returns there): few programs, so each has several tiles.
    """
    raise NotImplementedError("launch_persistent: C, then persistent_matmul_kernel[(programs,)](...) with "
                              "programs = persistent_grid(M, N, block_m, block_n, sms)")
