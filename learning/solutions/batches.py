"""Reference solution for exercise 16 (workshop I7): a batch of products as one list of tiles."""

import triton
import triton.language as tl


def matrix_and_tile(tile, tiles_per_matrix):
    return tile // tiles_per_matrix, tile % tiles_per_matrix


def _ceil_div(x, d):
    return -(-x // d)


def programs_per_matrix_grid(batch, sms):
    return batch * _ceil_div(sms, batch)


def per_matrix_grid_time(batch, tiles_per_matrix, sms):
    programs = min(_ceil_div(sms, batch), tiles_per_matrix)  # a matrix's own programs
    rounds = _ceil_div(batch * programs, sms)  # programs past the SM count wait for a free SM
    return rounds * _ceil_div(tiles_per_matrix, programs)


def busiest_share(batch, tiles_per_matrix, sms):
    tiles = batch * tiles_per_matrix
    return _ceil_div(tiles, min(sms, tiles))


@triton.jit
def bmm_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
               stride_ab, stride_am, stride_ak,
               stride_bb, stride_bk, stride_bn,
               stride_cb, stride_cm, stride_cn,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    tiles_n = tl.cdiv(N, BLOCK_N)
    tiles_per_matrix = tl.cdiv(M, BLOCK_M) * tiles_n
    matrix = pid // tiles_per_matrix  # matrix_and_tile
    within = pid % tiles_per_matrix
    pid_m = within // tiles_n
    pid_n = within % tiles_n
    # Each operand moves by its own batch stride: 0 for one the batch shares, so every matrix reads the same one.
    a_ptr += matrix * stride_ab
    b_ptr += matrix * stride_bb
    c_ptr += matrix * stride_cb
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    inner = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k_tile in range(0, tl.cdiv(K, BLOCK_K)):
        ks = k_tile * BLOCK_K + inner
        a_tile = tl.load(a_ptr + rows[:, None] * stride_am + ks[None, :] * stride_ak,
                         mask=(rows[:, None] < M) & (ks[None, :] < K), other=0.0)
        b_tile = tl.load(b_ptr + ks[:, None] * stride_bk + cols[None, :] * stride_bn,
                         mask=(ks[:, None] < K) & (cols[None, :] < N), other=0.0)
        acc = tl.dot(a_tile, b_tile, acc)
    tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn, acc,
             mask=(rows[:, None] < M) & (cols[None, :] < N))


def launch_bmm(a, b, c, block_m=16, block_n=16, block_k=16):
    batch, m, n = c.shape
    k = a.shape[2]
    grid = (batch * triton.cdiv(m, block_m) * triton.cdiv(n, block_n),)
    bmm_kernel[grid](a, b, c, m, n, k,
                     a.stride(0), a.stride(1), a.stride(2),
                     b.stride(0), b.stride(1), b.stride(2),
                     c.stride(0), c.stride(1), c.stride(2),
                     BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k)
