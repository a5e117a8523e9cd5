"""The tile loop is a `while True` that breaks when the tiles run out: right on the interpreter, which runs the
kernel as Python; Triton's compiler has no `break`."""

import torch
import triton
import triton.language as tl


def persistent_grid(m, n, block_m, block_n, sms):
    tiles = triton.cdiv(m, block_m) * triton.cdiv(n, block_n)
    return max(1, min(tiles, sms))  # never more programs than tiles, nor than SMs


def tiles_of_program(pid, programs, tiles):
    return list(range(pid, tiles, programs))  # one wave apart


@triton.jit
def persistent_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                             stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                             GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    programs = tl.num_programs(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    tiles = tiles_m * tiles_n
    tile = pid
    while True:
        if tile >= tiles:
            break  # the bug: no `break` in a compiled kernel; `while tile < tiles:` says the same
        # The tile's place in GROUP_M order (workshop I3): walk down a group of GROUP_M tile rows, then right.
        per_group = GROUP_M * tiles_n
        first_m = (tile // per_group) * GROUP_M
        rows_here = tl.minimum(tiles_m - first_m, GROUP_M)  # the last group may be shorter
        pid_m = first_m + (tile % per_group) % rows_here
        pid_n = (tile % per_group) // rows_here

        rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)  # fresh for every tile
        for k0 in range(0, K, BLOCK_K):
            ks = k0 + tl.arange(0, BLOCK_K)
            a = tl.load(a_ptr + rows[:, None] * stride_am + ks[None, :] * stride_ak,
                        mask=(rows[:, None] < M) & (ks[None, :] < K), other=0.0)
            b = tl.load(b_ptr + ks[:, None] * stride_bk + cols[None, :] * stride_bn,
                        mask=(ks[:, None] < K) & (cols[None, :] < N), other=0.0)
            acc = tl.dot(a, b, acc)
        tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn, acc,
                 mask=(rows[:, None] < M) & (cols[None, :] < N))
        tile += programs


def launch_persistent(a, b, sms=4, out=None, block_m=32, block_n=32, block_k=32, group_m=8):
    m, k = a.shape
    n = b.shape[1]
    if out is None:
        out = torch.empty((m, n), dtype=torch.float32, device=a.device)
    programs = persistent_grid(m, n, block_m, block_n, sms)
    persistent_matmul_kernel[(programs,)](a, b, out, m, n, k,
                                          a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                          out.stride(0), out.stride(1),
                                          BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k, GROUP_M=group_m)
    return out
