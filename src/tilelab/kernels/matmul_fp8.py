"""fp8 matmul with per-tensor scales: C = (A @ B) * scale_a * scale_b, persistent, on tensor descriptors.

Only `@triton.jit` code lives here; `tilelab.ops.scaled_matmul` checks and launches it.

A is float8_e4m3fn stored [M, K] (row-major); B is float8_e4m3fn stored
[N, K], i.e. K-major: Hopper's fp8 wgmma reads both operands K-major from
shared memory, so B arrives in the layout the tensor core wants and is
only re-viewed (`.T`), never moved. The scales are float32 scalars in
device memory, loaded once per program, and applied to the float32
accumulator once per tile, not per product. The launcher builds the
descriptors of A, B and C on the host (`tilelab.ops.descriptors.host_descriptors`):
they arrive as kernel parameters, ready for TMA.

Accumulation precision. Hopper's fp8 wgmma adds its products into an
accumulator that keeps fewer mantissa bits than float32 (about 14 rather
than 23). Over a long K the rounding of that running sum grows.
- FAST_ACCUM=True: one accumulator for the whole K loop, kept in wgmma's
  reduced precision (Triton's default on sm_90; what torch._scaled_mm does
  with use_fast_accum=True). Fastest.
- FAST_ACCUM=False: each BLOCK_K step's wgmma chain starts from zero and its
  result is added into the float32 accumulator with ordinary float32 adds
  (`max_num_imprecise_acc=BLOCK_K`), so the reduced precision spans only
  BLOCK_K products (torch's default, use_fast_accum=False). Costs extra
  registers and adds per step.

The persistent loop is that of `kernels/matmul_persistent.py`: one program
per SM, tiles in GROUP_M order, descriptors built once; with FLATTEN the tile
and K loops become one pipelined loop, so the next tile's first loads are in
flight while this tile's epilogue runs.
"""

import triton
import triton.language as tl

from tilelab.kernels.matmul import grouped_tile
from tilelab.kernels.matmul_persistent import store_tile


@triton.jit
def scaled_matmul_kernel(
    a_desc, b_desc, c_desc,  # A [M, K] in [BLOCK_M, BLOCK_K] blocks, B [N, K] in [BLOCK_N, BLOCK_K], C [M, N]
    scale_a_ptr, scale_b_ptr,
    M, N, K,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr,
    NUM_STAGES: tl.constexpr,
    EPILOGUE_SUBTILE: tl.constexpr,
    FAST_ACCUM: tl.constexpr,
    FLATTEN: tl.constexpr = False,
):
    start = tl.program_id(0)
    programs = tl.num_programs(0)
    # One float32 multiplier for every tile this program writes.
    scale = tl.load(scale_a_ptr) * tl.load(scale_b_ptr)

    tiles = tl.cdiv(M, BLOCK_M) * tl.cdiv(N, BLOCK_N)
    k_steps = tl.cdiv(K, BLOCK_K)
    # As in matmul_persistent_kernel: the epilogue recomputes its tile from its own counter, so that
    # FLATTEN can fuse the loops (the store then runs on the last K step).
    epilogue_tile = start - programs
    for tile in tl.range(start, tiles, programs, flatten=FLATTEN):
        pid_m, pid_n = grouped_tile(tile, M, N, BLOCK_M, BLOCK_N, GROUP_M)
        off_m = pid_m * BLOCK_M
        off_n = pid_n * BLOCK_N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in tl.range(0, k_steps, num_stages=NUM_STAGES):
            a = a_desc.load([off_m, k * BLOCK_K])
            b = b_desc.load([off_n, k * BLOCK_K]).T  # [BLOCK_K, BLOCK_N], still K-major in shared memory
            if FAST_ACCUM:
                acc = tl.dot(a, b, acc)
            else:
                # Promote to float32 after every BLOCK_K products.
                acc = tl.dot(a, b, acc, max_num_imprecise_acc=BLOCK_K)

        epilogue_tile += programs
        pid_m, pid_n = grouped_tile(epilogue_tile, M, N, BLOCK_M, BLOCK_N, GROUP_M)
        off_m = pid_m * BLOCK_M
        off_n = pid_n * BLOCK_N
        acc = acc * scale
        # One GEMM (matrix 0, no row classes), no fused epilogue (no bias, no activation).
        store_tile(c_desc, 0, 0, acc, off_m, off_n, BLOCK_M, BLOCK_N, EPILOGUE_SUBTILE, 1, N, None, "")
