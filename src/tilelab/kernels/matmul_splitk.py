"""Split-K matmul: several programs share one output tile's K range, then a second kernel adds them up.

Only `@triton.jit` code lives here; `tilelab.ops.matmul_hopper` launches it.

A skinny problem (M=16, N=K=4096) has few output tiles: 16x64 tiles make
64 programs for 132 SMs, each walking all 4096 of K alone. Cutting K into
SPLIT_K slices multiplies the programs by SPLIT_K, each walking K/SPLIT_K.

Each slice writes its float32 partial tile to its own plane of a
[batch, SPLIT_K, M, N] workspace, and `splitk_reduce_kernel` sums the
planes in a fixed order and casts to C's dtype. No atomics: the result is
the same bits on every run.

Grid of both split-K kernels: (tiles in GROUP_M order, SPLIT_K, batch).
`matmul_splitk_kernel` reads with masked pointer loads (any strides);
`matmul_splitk_descriptor_kernel` reads through tensor descriptors (TMA on
Hopper; the operand conventions of `matmul_descriptor_kernel`).
"""

import triton
import triton.language as tl

from tilelab.kernels.matmul import grouped_tile, load_operand_tiles, operand_descriptors


@triton.jit
def matmul_splitk_kernel(
    a_ptr, b_ptr, ws_ptr,
    M, N, K,
    stride_ab, stride_am, stride_ak,
    stride_bb, stride_bk, stride_bn,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr,
    SPLIT_K: tl.constexpr,
    INPUT_PRECISION: tl.constexpr,
    OFFSETS_64: tl.constexpr,
    EVEN_K: tl.constexpr,
):
    """Partial products of one K slice into workspace plane [batch, slice] (contiguous [M, N]).

    EVEN_K (K % BLOCK_K == 0): every K step is whole, so loads need no K mask
    and stay vectorized along K.
    """
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

    plane = (batch * SPLIT_K + k_slice) * M * N  # int64, since batch is
    ws_tile = ws_ptr + plane + rows[:, None] * N + cols[None, :]
    tl.store(ws_tile, acc, mask=(rows[:, None] < M) & (cols[None, :] < N))


@triton.jit
def matmul_splitk_descriptor_kernel(
    a_ptr, b_ptr, ws_ptr,
    M, N, K,
    stride_ab, stride_a_row,
    stride_bb, stride_b_row,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr,
    SPLIT_K: tl.constexpr,
    INPUT_PRECISION: tl.constexpr,
    A_K_MAJOR: tl.constexpr,
    B_K_MAJOR: tl.constexpr,
):
    """The same partial products, operands read through tensor descriptors: whole tiles, no masks.

    A slice covers whole BLOCK_K steps, so the only step cut short is the
    last one of K, and the descriptor's zero padding takes care of it.
    """
    pid_m, pid_n = grouped_tile(tl.program_id(0), M, N, BLOCK_M, BLOCK_N, GROUP_M)
    k_slice = tl.program_id(1)
    batch = tl.program_id(2).to(tl.int64)
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
        a, b = load_operand_tiles(a_desc, b_desc, off_m, off_n, step * BLOCK_K, A_K_MAJOR, B_K_MAJOR)
        acc = tl.dot(a, b, acc, input_precision=INPUT_PRECISION)

    # The workspace plane is written with pointers: its rows (N float32) need not be 16-byte aligned.
    rows = off_m + tl.arange(0, BLOCK_M)
    cols = off_n + tl.arange(0, BLOCK_N)
    plane = (batch * SPLIT_K + k_slice) * M * N
    tl.store(ws_ptr + plane + rows[:, None] * N + cols[None, :], acc, mask=(rows[:, None] < M) & (cols[None, :] < N))


@triton.jit
def splitk_reduce_kernel(
    ws_ptr, c_ptr,
    M, N,
    stride_cb, stride_cm, stride_cn,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
    SPLIT_K: tl.constexpr,
):
    """C[batch] = sum over slices of workspace[batch, slice], in slice order, cast to C's dtype.

    Grid: (cdiv(M, BLOCK_M), cdiv(N, BLOCK_N), batch).
    """
    batch = tl.program_id(2).to(tl.int64)
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    inside = (rows[:, None] < M) & (cols[None, :] < N)
    plane = rows[:, None] * N + cols[None, :]

    total = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for s in tl.static_range(SPLIT_K):  # unrolled: SPLIT_K independent loads in flight
        total += tl.load(ws_ptr + (batch * SPLIT_K + s) * M * N + plane, mask=inside, other=0.0)

    c_tile = c_ptr + batch * stride_cb + rows[:, None] * stride_cm + cols[None, :] * stride_cn
    tl.store(c_tile, total.to(c_ptr.dtype.element_ty), mask=inside)
