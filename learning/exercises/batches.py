"""Exercise 16 (workshop I7): a batch of products, C[b] = A[b] @ B[b], as one list of tiles.

tilelab describes each operand of a batch once, in 3-D ([batch, rows, cols] with [1, rows, cols] blocks:
`stored_descriptor` in src/tilelab/ops/descriptors.py), and its persistent kernels walk every matrix's tiles as one
list: tile t of the list is tile t % tiles_per_matrix of matrix t // tiles_per_matrix (`matrix_and_tile` in
src/tilelab/kernels/matmul_persistent.py and src/tilelab/kernels/gluon_loader.py). Before, the persistent grid
gave each matrix its own ceil(sms / batch) programs: on the H200's 132 SMs, 8 matrices got 8 x 17 = 136
programs, and the 4 past the SM count ran after the others.

The first four functions count that (standard library only); the last two are a batched Triton matmul with one
program per tile of every matrix, in one launch. Implement them, then run:  python -m learning.check batches
Workshop I7 (learning/workshops/I7_one_list_of_tiles.md) uses them.
"""

import triton
import triton.language as tl


def matrix_and_tile(tile, tiles_per_matrix):
    """(the matrix, the tile within that matrix) of tile `tile` of a batch's one list, matrix after matrix, each
    matrix `tiles_per_matrix` tiles. tile >= 0, tiles_per_matrix >= 1.

    matrix_and_tile(0, 6) == (0, 0); matrix_and_tile(7, 6) == (1, 1); matrix_and_tile(1000, 512) == (1, 488).
    """
    raise NotImplementedError("matrix_and_tile: how many whole matrices come before this tile, and what is left?")


def programs_per_matrix_grid(batch, sms):
    """The programs the old persistent grid launched for `batch` matrices (each with at least that many tiles):
    every matrix got its own ceil(sms / batch) programs. batch, sms >= 1.

    programs_per_matrix_grid(1, 132) == 132; programs_per_matrix_grid(8, 132) == 136 (8 x 17);
    programs_per_matrix_grid(4, 132) == 132.
    """
    raise NotImplementedError("programs_per_matrix_grid: each matrix's rounded-up share of the SMs, batch times")


def per_matrix_grid_time(batch, tiles_per_matrix, sms):
    """How long the old grid runs, counted in tiles, if every program takes as long as the busiest one. Each
    matrix's tiles are shared over its own min(ceil(sms / batch), tiles_per_matrix) programs, the busiest taking
    the rounded-up share; the programs start in rounds of `sms` (one per SM: a program past the SM count waits
    until one before it ends), so the time is rounds x share. batch, tiles_per_matrix, sms >= 1.

    per_matrix_grid_time(8, 512, 132) == 62 (17 programs a matrix, 31 tiles for the busiest, 136 programs: 2
    rounds); per_matrix_grid_time(4, 512, 132) == 16; per_matrix_grid_time(8, 4, 132) == 1.
    """
    raise NotImplementedError("per_matrix_grid_time: programs per matrix, the busiest share, the rounds of SMs")


def busiest_share(batch, tiles_per_matrix, sms):
    """The tiles of the busiest program when all batch * tiles_per_matrix tiles form one list, shared over
    min(sms, that many tiles) programs (the busiest takes the rounded-up share). batch, tiles_per_matrix, sms >= 1.

    busiest_share(8, 512, 132) == 32; busiest_share(2, 64, 132) == 1; busiest_share(256, 1, 132) == 2.
    """
    raise NotImplementedError("busiest_share: every matrix's tiles in one list, over at most one program per SM")


@triton.jit
def bmm_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
               stride_ab, stride_am, stride_ak,
               stride_bb, stride_bk, stride_bn,
               stride_cb, stride_cm, stride_cn,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """Program pid computes one BLOCK_M x BLOCK_N tile of one matrix of C: pid is an index into the batch's one
    list of tiles. stride_xb is operand x's batch stride: 0 when the whole batch shares x."""
    # TODO: tiles per matrix (along M times along N); the matrix and the tile within it, as matrix_and_tile
    #       does; (pid_m, pid_n) of that tile; each pointer moved by matrix * its own batch stride; then exercise
    #       12's masked K loop into an fp32 accumulator, and one masked store.
    pass


def launch_bmm(a, b, c, block_m=16, block_n=16, block_k=16):
    """C[i] (float32) = A[i] (float16) @ B[i] (float16) for every i, in one launch of bmm_kernel on a 1-D grid of
    batch * cdiv(M, block_m) * cdiv(N, block_n) programs. a is [batch, M, K], b [batch, K, N] and c [batch, M, N]:
    any of them a strided view, and b possibly one matrix expanded over the batch (b.stride(0) == 0).
    Block sizes must be at least 16 for tl.dot.

    With c of shape [3, 37, 29] and 16 x 16 tiles: 3 * 3 * 2 = 18 programs.
    """
    raise NotImplementedError("launch_bmm: grid = (batch * tiles per matrix,), and every operand's batch stride")
