"""What the two Gluon matmul kernels share: the GROUP_M tile order, block copies of one matrix or of a
batch, and the warp that loads their stages.

Only kernel code lives here; `matmul_tf32_registers.py` and `matmul_pingpong.py` use it.

The loader is one warp of a warp-specialized kernel. It walks every (tile, K step) of its program in order
and fills a ring of shared-memory stages by TMA: it waits on a stage's "empty" mbarrier (the MMA warps
arrive there when they are done with it), tells its "ready" mbarrier how many bytes to expect, and starts
the two copies, whose arrival completes "ready". The ring position `step` picks the stage and the phase.

A batch is one list of tiles, matrix after matrix (`matrix_and_tile`), as in the persistent Triton kernel.
Its operands are described in 3-D ([batch, rows, cols], [1, rows, cols] blocks); the rings stay 2-D, and a
copy views its 2-D buffer as the [1, rows, cols] block (`copy_in`, `copy_out`). An operand the batch shares
is described in 2-D.
"""

from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import mbarrier, tma


@gluon.jit
def grouped_tile(tile, M, N, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, GROUP_M: gl.constexpr):
    """Tile index -> (pid_m, pid_n) in GROUP_M order, as `tilelab.kernels.matmul.grouped_tile`."""
    grid_m = gl.cdiv(M, BLOCK_M)
    grid_n = gl.cdiv(N, BLOCK_N)
    width = GROUP_M * grid_n
    first_m = (tile // width) * GROUP_M
    rows = gl.minimum(grid_m - first_m, GROUP_M)
    return first_m + (tile % width) % rows, (tile % width) // rows


@gluon.jit
def matrix_and_tile(tile, tiles, BATCHED: gl.constexpr):
    """A tile of the batch's list -> (its matrix, its index within that matrix's `tiles`). One GEMM keeps the
    index as it is: no division."""
    if BATCHED:
        return tile // tiles, tile % tiles
    else:
        return 0, tile


@gluon.constexpr_function
def block_shape(desc):
    """The [rows, cols] of one block of a 2-D descriptor, or of a 3-D one's [1, rows, cols] block."""
    return list(desc.block_type.shape[-2:])


@gluon.constexpr_function
def ring_layout(desc):
    """The shared-memory layout of a 2-D buffer that holds one of `desc`'s blocks: the host's (NVMMA, widest
    swizzle) for a 2-D descriptor; the same swizzle in rank 2 for a 3-D one."""
    layout = desc.layout
    return gl.NVMMASharedLayout(layout.swizzle_byte_width, layout.element_bitwidth, rank=2)


@gluon.constexpr_function
def as_one_matrix(buf):
    """The [1, rows, cols] shape under which a 3-D descriptor's copy sees the 2-D buffer `buf`."""
    return [1, *buf.type.shape]


@gluon.jit
def copy_in(desc, matrix, row, col, bar, buf):
    """TMA: the block at (row, col) of a 2-D descriptor, or of matrix `matrix` of a 3-D one, into the 2-D `buf`;
    its arrival counts on the mbarrier `bar`. (Two coordinates on a 3-D descriptor would compile to a 2-D copy
    without complaint: the rank decides here.)"""
    if len(desc.block_type.shape) == 3:
        tma.async_copy_global_to_shared(desc, [matrix, row, col], bar, buf.reshape(as_one_matrix(buf)))
    else:
        tma.async_copy_global_to_shared(desc, [row, col], bar, buf)


@gluon.jit
def copy_out(desc, matrix, row, col, buf):
    """TMA: the 2-D `buf` into the block at (row, col) of a 2-D descriptor, or of matrix `matrix` of a 3-D one."""
    if len(desc.block_type.shape) == 3:
        tma.async_copy_shared_to_global(desc, [matrix, row, col], buf.reshape(as_one_matrix(buf)))
    else:
        tma.async_copy_shared_to_global(desc, [row, col], buf)


@gluon.jit
def load_partition(a_desc, b_desc, a_bufs, b_bufs, ready, empty, M, N, K, MATRICES, GROUP_M: gl.constexpr,
                   B_K_MAJOR: gl.constexpr, BATCHED: gl.constexpr):
    """The loader warp: every (tile, K step) of this program, in order, A's and B's tiles into the next stage.
    A is stored [M, K]; B [K, N], or [N, K] with B_K_MAJOR (its blocks are then [BLOCK_N, BLOCK_K]). BATCHED:
    C holds MATRICES products, and an operand with a 3-D descriptor a matrix for each (MATRICES is 1 if not)."""
    STAGES: gl.constexpr = a_bufs.type.shape[0]
    BLOCK_M: gl.constexpr = a_bufs.type.shape[1]
    BLOCK_K: gl.constexpr = a_bufs.type.shape[2]
    BLOCK_N: gl.constexpr = b_bufs.type.shape[1] if B_K_MAJOR else b_bufs.type.shape[2]
    tiles = gl.cdiv(M, BLOCK_M) * gl.cdiv(N, BLOCK_N)
    k_steps = gl.cdiv(K, BLOCK_K)
    step = 0  # the ring position, across tiles: it picks the stage and the mbarrier phase
    for tile in range(gl.program_id(0), MATRICES * tiles, gl.num_programs(0)):
        matrix, within = matrix_and_tile(tile, tiles, BATCHED)
        pid_m, pid_n = grouped_tile(within, M, N, BLOCK_M, BLOCK_N, GROUP_M)
        for k in range(k_steps):
            stage = step % STAGES
            # A fresh mbarrier counts as having completed phase 1: the first round does not wait.
            mbarrier.wait(empty.index(stage), ((step // STAGES) & 1) ^ 1)
            mbarrier.expect(ready.index(stage), a_desc.block_type.nbytes + b_desc.block_type.nbytes)
            copy_in(a_desc, matrix, pid_m * BLOCK_M, k * BLOCK_K, ready.index(stage), a_bufs.index(stage))
            if B_K_MAJOR:
                copy_in(b_desc, matrix, pid_n * BLOCK_N, k * BLOCK_K, ready.index(stage), b_bufs.index(stage))
            else:
                copy_in(b_desc, matrix, k * BLOCK_K, pid_n * BLOCK_N, ready.index(stage), b_bufs.index(stage))
            step += 1
