"""The last slice to arrive never sets its tile's counter back to 0."""

import torch
import triton
import triton.language as tl


def k_slices(k, block_k, split_k):
    per = triton.cdiv(triton.cdiv(k, block_k), split_k) * block_k  # whole BLOCK_K steps, rounded up
    return [(min(s * per, k), min((s + 1) * per, k)) for s in range(split_k)]  # the last ones may be empty


@triton.jit
def splitk_kernel(a_ptr, b_ptr, c_ptr, ws_ptr, counters_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, SPLIT_K: tl.constexpr):
    tile = tl.program_id(0)
    k_slice = tl.program_id(1)
    tiles_n = tl.cdiv(N, BLOCK_N)
    rows = (tile // tiles_n) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = (tile % tiles_n) * BLOCK_N + tl.arange(0, BLOCK_N)
    inside = (rows[:, None] < M) & (cols[None, :] < N)

    # This slice's K range: k_slices' rule, so a slice starts and ends on a BLOCK_K step (or at K).
    per_slice = tl.cdiv(tl.cdiv(K, BLOCK_K), SPLIT_K) * BLOCK_K
    k_start = k_slice * per_slice
    k_stop = tl.minimum(k_start + per_slice, K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(k_start, k_stop, BLOCK_K):  # no steps at all for an empty slice: acc stays 0
        ks = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rows[:, None] * stride_am + ks[None, :] * stride_ak,
                    mask=(rows[:, None] < M) & (ks[None, :] < K), other=0.0)
        b = tl.load(b_ptr + ks[:, None] * stride_bk + cols[None, :] * stride_bn,
                    mask=(ks[:, None] < K) & (cols[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)

    # Hand the partial tile in: plane k_slice of the [SPLIT_K, M, N] workspace, then count this slice.
    offsets = rows[:, None] * N + cols[None, :]
    tl.store(ws_ptr + k_slice * M * N + offsets, acc, mask=inside)
    tl.debug_barrier()  # every thread's part of the plane is stored before the count goes up
    counter = counters_ptr + tile
    arrived = tl.atomic_add(counter, 1, sem="acq_rel")  # the count before this slice's own +1
    if arrived == SPLIT_K - 1:  # every other slice has handed its plane in: this one finishes the tile
        total = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for s in tl.static_range(SPLIT_K):  # slice order, whoever arrived last: the same bits every run
            total += tl.load(ws_ptr + s * M * N + offsets, mask=inside, other=0.0)
        tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn, total, mask=inside)


def launch_split_k(a, b, split_k=4, out=None, counters=None, block_m=32, block_n=32, block_k=32):
    m, k = a.shape
    n = b.shape[1]
    if out is None:
        out = torch.empty((m, n), dtype=torch.float32, device=a.device)
    tiles = triton.cdiv(m, block_m) * triton.cdiv(n, block_n)
    if counters is None:
        counters = torch.zeros(tiles, dtype=torch.int32, device=a.device)
    workspace = torch.empty((split_k, m, n), dtype=torch.float32, device=a.device)
    splitk_kernel[(tiles, split_k)](a, b, out, workspace, counters, m, n, k,
                                    a.stride(0), a.stride(1), b.stride(0), b.stride(1), out.stride(0), out.stride(1),
                                    BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k, SPLIT_K=split_k)
    return out
