"""Split-K matmul: several programs share one output tile's K range; the last one to finish adds them up.

Only `@triton.jit` code lives here; `tilelab.ops.matmul_hopper` launches it.

A skinny problem (M=16, N=K=4096) has few output tiles: 16x64 tiles make
64 programs for 132 SMs, each walking all 4096 of K alone. Cutting K into
SPLIT_K slices multiplies the programs by SPLIT_K, each walking K/SPLIT_K.

Each slice writes its float32 partial tile to its own plane of a
[batch, SPLIT_K, M, N] workspace and counts itself in a per-tile counter.
The slice that arrives last sums the planes in slice order (whoever that
is, the same order: the result is the same bits on every run), writes C in
its dtype and sets the counter back to 0, so the counters can be reused by
the next launch without clearing. One launch, and the partial tiles are
read back while still in L2. With SPLIT_K=1 a program stores C directly.

Grid: (tiles in GROUP_M order, SPLIT_K, batch). `matmul_splitk_kernel`
reads with masked pointer loads (any strides); `matmul_splitk_descriptor_kernel`
reads through tensor descriptors (TMA on Hopper; the operand conventions of
`matmul_descriptor_kernel`).

`tilelab.linear`'s epilogue (trailing `bias_ptr`, `ACTIVATION`, as in the other
kernels): `apply_epilogue` on the final float32 sum, by whichever program writes
C (the last slice to arrive, or the only one), never on the partials.
"""

import triton
import triton.language as tl

from tilelab.kernels.matmul import (
    apply_epilogue,
    grouped_tile,
    known_multiples,
    load_operand_tiles,
    operand_descriptors,
)


@triton.jit
def hand_in_slice(acc, planes, plane_size, offsets, inside, counter, k_slice):
    """Write this slice's float32 partial tile to its plane of the workspace and count it in the tile's counter;
    returns how many slices arrived before it (SPLIT_K - 1: this one completes the tile: `sum_of_slices`).

    planes: the tile's workspace, SPLIT_K planes of plane_size elements; offsets and inside: the tile's elements
    in a plane and which of them exist (None: all, as in conv's planes of whole tiles). `tilelab.conv2d_bn_silu`'s
    split-K shares both functions.
    """
    tl.store(planes + k_slice * plane_size + offsets, acc, mask=inside)
    # Every thread's partial is written before the count goes up (release), and
    # the slice that sees SPLIT_K - 1 earlier arrivals sees all their partials (acquire).
    tl.debug_barrier()
    return tl.atomic_add(counter, 1, sem="acq_rel", scope="gpu")


@triton.jit
def sum_of_slices(planes, plane_size, offsets, inside, SPLIT_K: tl.constexpr):
    """The last slice's part: the tile's sum over its SPLIT_K planes, in slice order (whoever arrives last, the
    same sum: the same bits on every run). The caller stores it, then sets the tile's counter back to 0 for the
    next launch (after the store: set before it, the sum spilled registers on sm_90)."""
    total = tl.zeros(offsets.shape, dtype=tl.float32)
    for s in tl.static_range(SPLIT_K):
        # .cg: read from L2, never from a stale L1 line
        if inside is None:
            total += tl.load(planes + s * plane_size + offsets, cache_modifier=".cg")
        else:
            total += tl.load(planes + s * plane_size + offsets, mask=inside, other=0.0, cache_modifier=".cg")
    return total


@triton.jit
def finish_split_tile(acc, c_ptr, ws_ptr, counters_ptr, rows, cols, M, N, stride_cb, stride_cm, stride_cn,
                      SPLIT_K: tl.constexpr, off_n, BLOCK_N: tl.constexpr, bias_ptr, ACTIVATION: tl.constexpr):
    """Hand in this slice's partial tile; the slice that completes the tile writes C.

    off_n: the tile's first column (cols[0]). bias_ptr, ACTIVATION: `apply_epilogue` on the tile's whole float32
    sum, right before its rounding to C's dtype; the partials in the workspace stay plain products. Neither
    given (None, ""): not even a call, so a matmul launch compiles as it did before the epilogue existed.
    """
    tile = tl.program_id(0)
    k_slice = tl.program_id(1)
    batch = tl.program_id(2).to(tl.int64)
    inside = (rows[:, None] < M) & (cols[None, :] < N)
    c_tile = c_ptr + batch * stride_cb + rows[:, None] * stride_cm + cols[None, :] * stride_cn
    if SPLIT_K == 1:
        if bias_ptr is not None or ACTIVATION != "":
            acc = apply_epilogue(acc, bias_ptr, off_n, N, BLOCK_N, ACTIVATION)
        tl.store(c_tile, acc.to(c_ptr.dtype.element_ty), mask=inside)
    else:
        planes = ws_ptr + batch * SPLIT_K * M * N  # int64, since batch is
        counter = counters_ptr + batch * tl.num_programs(0) + tile
        offsets = rows[:, None] * N + cols[None, :]
        if hand_in_slice(acc, planes, M * N, offsets, inside, counter, k_slice) == SPLIT_K - 1:
            total = sum_of_slices(planes, M * N, offsets, inside, SPLIT_K)
            if bias_ptr is not None or ACTIVATION != "":  # on the sum, never on a partial
                total = apply_epilogue(total, bias_ptr, off_n, N, BLOCK_N, ACTIVATION)
            tl.store(c_tile, total.to(c_ptr.dtype.element_ty), mask=inside)
            tl.atomic_xchg(counter, 0, sem="relaxed", scope="gpu")  # ready for the next launch


@triton.jit
def matmul_splitk_kernel(
    a_ptr, b_ptr, c_ptr, ws_ptr, counters_ptr,
    M, N, K,
    stride_ab, stride_am, stride_ak,
    stride_bb, stride_bk, stride_bn,
    stride_cb, stride_cm, stride_cn,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr,
    SPLIT_K: tl.constexpr,
    INPUT_PRECISION: tl.constexpr,
    OFFSETS_64: tl.constexpr,
    EVEN_K: tl.constexpr,
    ALIGN: tl.constexpr,
    bias_ptr=None,
    ACTIVATION: tl.constexpr = "",
):
    """One K slice of one tile: its partial product, then `finish_split_tile`.

    EVEN_K (K % BLOCK_K == 0): every K step is whole, so loads need no K mask.
    ALIGN > 1: as `matmul_pointer_kernel`'s, N, K and the row and batch
    strides are multiples of ALIGN elements (the launcher checked), so the
    loads and stores can be vectorized; the workspace rows are N long.

    bias_ptr, ACTIVATION: `apply_epilogue` on the final sum (`finish_split_tile`; `tilelab.linear`); left at
    their defaults, nothing.
    """
    if ALIGN > 1:
        N, K, stride_ab, stride_am, stride_bb, stride_bk, stride_cb, stride_cm = known_multiples(
            N, K, stride_ab, stride_am, stride_bb, stride_bk, stride_cb, stride_cm, ALIGN)
    pid_m, pid_n = grouped_tile(tl.program_id(0), M, N, BLOCK_M, BLOCK_N, GROUP_M)
    k_slice = tl.program_id(1)
    batch = tl.program_id(2).to(tl.int64)
    if OFFSETS_64:
        # Element offsets past 2**31 would wrap in int32 arithmetic.
        pid_m = pid_m.to(tl.int64)
        pid_n = pid_n.to(tl.int64)
    # Slices own whole BLOCK_K steps: ceil(steps / SPLIT_K) each, so the last
    # slices may be shorter, or empty (they still write their zero tile).
    steps_per_slice = tl.cdiv(tl.cdiv(K, BLOCK_K), SPLIT_K)
    k_start = k_slice * steps_per_slice * BLOCK_K
    k_stop = tl.minimum(k_start + steps_per_slice * BLOCK_K, K)

    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = k_start + tl.arange(0, BLOCK_K)
    a_tile = a_ptr + batch * stride_ab + rows[:, None] * stride_am + ks[None, :] * stride_ak
    b_tile = b_ptr + batch * stride_bb + ks[:, None] * stride_bk + cols[None, :] * stride_bn

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(k_start, k_stop, BLOCK_K):
        if EVEN_K:
            a = tl.load(a_tile, mask=rows[:, None] < M, other=0.0)
            b = tl.load(b_tile, mask=cols[None, :] < N, other=0.0)
        else:
            # Masked lanes read 0: K's end and the tile's edges add nothing. (A slice
            # ends on a BLOCK_K boundary, so only K's end cuts a step short.)
            k_ok = (k0 + tl.arange(0, BLOCK_K)) < K
            a = tl.load(a_tile, mask=(rows[:, None] < M) & k_ok[None, :], other=0.0)
            b = tl.load(b_tile, mask=k_ok[:, None] & (cols[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision=INPUT_PRECISION)
        a_tile += BLOCK_K * stride_ak
        b_tile += BLOCK_K * stride_bk

    finish_split_tile(acc, c_ptr, ws_ptr, counters_ptr, rows, cols, M, N, stride_cb, stride_cm, stride_cn,
                      SPLIT_K, pid_n * BLOCK_N, BLOCK_N, bias_ptr, ACTIVATION)


@triton.jit
def matmul_splitk_descriptor_kernel(
    a_ptr, b_ptr, c_ptr, ws_ptr, counters_ptr,
    M, N, K,
    stride_ab, stride_a_row,
    stride_bb, stride_b_row,
    stride_cb, stride_cm, stride_cn,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr,
    SPLIT_K: tl.constexpr,
    INPUT_PRECISION: tl.constexpr,
    A_K_MAJOR: tl.constexpr,
    B_K_MAJOR: tl.constexpr,
    HOST_DESCRIPTORS: tl.constexpr = False,
    bias_ptr=None,
    ACTIVATION: tl.constexpr = "",
):
    """The same partial products, operands read through tensor descriptors: whole tiles, no masks.

    A slice covers whole BLOCK_K steps, so the only step cut short is the
    last one of K, and the descriptor's zero padding takes care of it.
    HOST_DESCRIPTORS: a_ptr and b_ptr are descriptors built by the launcher (3-D for a batch:
    `load_block`).
    bias_ptr, ACTIVATION: as in `matmul_splitk_kernel`.
    """
    pid_m, pid_n = grouped_tile(tl.program_id(0), M, N, BLOCK_M, BLOCK_N, GROUP_M)
    k_slice = tl.program_id(1)
    matrix = tl.program_id(2)
    batch = matrix.to(tl.int64)
    if HOST_DESCRIPTORS:
        a_desc, b_desc = a_ptr, b_ptr
    else:
        a_desc, b_desc = operand_descriptors(a_ptr + batch * stride_ab, b_ptr + batch * stride_bb, M, N, K,
                                             stride_a_row, stride_b_row, BLOCK_M, BLOCK_N, BLOCK_K,
                                             A_K_MAJOR, B_K_MAJOR)

    steps = tl.cdiv(K, BLOCK_K)
    steps_per_slice = tl.cdiv(steps, SPLIT_K)
    first = k_slice * steps_per_slice
    last = tl.minimum(first + steps_per_slice, steps)
    off_m = pid_m * BLOCK_M
    off_n = pid_n * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for step in range(first, last):
        a, b = load_operand_tiles(a_desc, b_desc, matrix, 0, off_m, off_n, step * BLOCK_K, A_K_MAJOR,
                                  B_K_MAJOR, 1)
        acc = tl.dot(a, b, acc, input_precision=INPUT_PRECISION)

    # C and the workspace are written with pointers: their rows need not be 16-byte aligned.
    rows = off_m + tl.arange(0, BLOCK_M)
    cols = off_n + tl.arange(0, BLOCK_N)
    finish_split_tile(acc, c_ptr, ws_ptr, counters_ptr, rows, cols, M, N, stride_cb, stride_cm, stride_cn,
                      SPLIT_K, off_n, BLOCK_N, bias_ptr, ACTIVATION)
