"""Exercise 19 (workshop I8, after triton_matmul): split-K, several programs for one tile of C.

Your triton_matmul gives each tile of C one program, and that program walks all of K alone. That is fine while
there are more tiles than SMs. A batch of 16 tokens through a 4096 x 4096 layer is C = A @ B with M=16, N=K=4096:
in 16x64 tiles, C has only 64 tiles for the H200's 132 SMs. Half the SMs get nothing, and each of the other half
streams a 4096-deep panel of B on its own.

Split-K cuts K into SPLIT_K slices and gives every (tile, slice) pair a program: 64 x 2 = 128 programs walk half of K
each. Every program computes a partial tile, the product over its slice of K. Someone has to add those up, and
the programs of one tile run at the same time, so they need to agree on who. Here, as in tilelab's
`matmul_splitk_kernel` (src/tilelab/kernels/matmul_splitk.py), each program writes its partial tile into its own
plane of a float32 workspace and then counts itself on its tile's counter. The one that counts last adds the
planes up and writes C, always in slice order 0, 1, ..., SPLIT_K - 1, so C has the same bits whoever came last.
Then it sets the counter back to 0, so the next launch can use the same counters without clearing them.

Write the three parts in order, then run:  python -m learning.check triton_split_k

1. k_slices: where each slice of K starts and stops.
2. splitk_kernel: one slice of one tile, then the hand-in and the sum.
3. launch_split_k: the workspace, the counters, one launch.

The checker runs your kernel on Triton's interpreter, which runs one program at a time, and it chooses the order
they run in: first tile by tile with slices in order, then mixed up, with a tile's slices last to first. Between
programs it looks at C and at the counters, so a tile of C written too early fails even if a later program puts
the right sum there. What it cannot catch is memory ordering: on the interpreter every store is seen by the next
program at once, so a missing tl.debug_barrier() or sem="relaxed" where "acq_rel" is needed passes here and breaks
only on a GPU, and only sometimes. Keep both as written in the TODOs.
"""

import torch
import triton
import triton.language as tl


def k_slices(k, block_k, split_k):
    """The [start, stop) range of K that each of the split_k slices multiplies, as a list of split_k pairs.

    A slice is made of whole BLOCK_K steps: K has ceil(k / block_k) steps, and each slice gets ceil(steps / split_k)
    of them. The last slices may then be shorter, or even empty, and no range reaches past k: clamp both ends.

    k_slices(100, 16, 4) == [(0, 32), (32, 64), (64, 96), (96, 100)]   (7 steps, 2 per slice)
    k_slices(40, 16, 4) == [(0, 16), (16, 32), (32, 40), (40, 40)]     (3 steps: slice 3 is empty)
    This is the library's rule: split_k_slices in src/tilelab/ops/matmul_hopper.py.
    """
    raise NotImplementedError("k_slices: whole BLOCK_K steps, ceil(steps / split_k) of them per slice, "
                              "both ends clamped to k")


@triton.jit
def splitk_kernel(a_ptr, b_ptr, c_ptr, ws_ptr, counters_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, SPLIT_K: tl.constexpr):
    """Program (tile, k_slice) = (tl.program_id(0), tl.program_id(1)).

    Tiles are numbered row-major: tile t is row t // cdiv(N, BLOCK_N) and column t % cdiv(N, BLOCK_N) of C's tiles.
    The workspace ws_ptr is float32 [SPLIT_K, M, N], contiguous: element (row, col) of plane s is at
    ws_ptr + s * M * N + row * N + col. counters_ptr holds one int32 counter per tile, all 0 at the start.
    C (float32, M x N) has its own strides."""
    # TODO: the tile's rows and cols, as in your triton_matmul, and inside = (rows < M)[:, None] & (cols < N)[None, :].
    # TODO: this slice's range, k_slices' rule: per_slice = tl.cdiv(tl.cdiv(K, BLOCK_K), SPLIT_K) * BLOCK_K,
    #       k_start = k_slice * per_slice, k_stop = tl.minimum(k_start + per_slice, K).
    # TODO: a float32 accumulator, and a loop `for k0 in range(k_start, k_stop, BLOCK_K)` of masked loads
    #       (rows < M, ks < K, cols < N; other=0.0) and tl.dot. An empty slice runs no step and keeps its zeros.
    # TODO: store acc into plane k_slice of the workspace (mask inside), even when the slice was empty.
    # TODO: tl.debug_barrier(), so all of the plane is stored before the count goes up; then
    #       arrived = tl.atomic_add(counters_ptr + tile, 1, sem="acq_rel"): the count from before this +1.
    # TODO: if arrived == SPLIT_K - 1 (every other slice has handed in): a float32 zero tile, add the planes
    #       in slice order (for s in tl.static_range(SPLIT_K), loads masked with inside), store it into C masked,
    #       and tl.atomic_xchg(counters_ptr + tile, 0) so the next launch starts from 0.
    pass


def launch_split_k(a, b, split_k=4, out=None, counters=None, block_m=32, block_n=32, block_k=32):
    """C = a @ b in float32 for 2-D float32 a (M x K) and b (K x N), either possibly a strided view.

    Writes into `out` (float32, M x N, any strides) when it is given, else into a new tensor, and returns the
    tensor it wrote. counters: int32, at least one per tile, all 0; when None, make them with torch.zeros. A caller
    may pass the same counters to every call: the kernel leaves them at 0. The workspace is made here, with
    torch.empty((split_k, M, N), dtype=torch.float32): the kernel writes every plane before any program reads it.

    One launch of splitk_kernel on the grid (tiles, split_k), tiles = cdiv(M, block_m) * cdiv(N, block_n), with
    SPLIT_K=split_k and the block sizes as BLOCK_M, BLOCK_N, BLOCK_K (at least 16: tl.dot needs it). The checker
    sees the workspace through the kernel's arguments, so only C is returned.
    """
    raise NotImplementedError("launch_split_k: workspace (split_k, M, N) float32, zeroed int32 counters, then "
                              "splitk_kernel[(tiles, split_k)](...)")
