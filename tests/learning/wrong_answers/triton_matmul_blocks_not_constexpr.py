"""The block sizes are plain arguments, not tl.constexpr: the interpreter runs it, the GPU compiler cannot."""

import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M, BLOCK_N, BLOCK_K):  # the bug: tile shapes must be known when compiling
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    inner = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)  # created once, before the K loop
    for k_tile in range(0, tl.cdiv(K, BLOCK_K)):
        ks = k_tile * BLOCK_K + inner
        a_tile = tl.load(a_ptr + rows[:, None] * stride_am + ks[None, :] * stride_ak,
                         mask=(rows[:, None] < M) & (ks[None, :] < K), other=0.0)
        b_tile = tl.load(b_ptr + ks[:, None] * stride_bk + cols[None, :] * stride_bn,
                         mask=(ks[:, None] < K) & (cols[None, :] < N), other=0.0)
        acc = tl.dot(a_tile, b_tile, acc)  # zero padding adds nothing to the dot product
    tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn, acc,
             mask=(rows[:, None] < M) & (cols[None, :] < N))


def launch_matmul(a, b, c, block_m=32, block_n=32, block_k=32):
    m, k = a.shape
    n = b.shape[1]
    grid = (triton.cdiv(m, block_m), triton.cdiv(n, block_n))
    matmul_kernel[grid](a, b, c, m, n, k,
                        a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                        BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k)
