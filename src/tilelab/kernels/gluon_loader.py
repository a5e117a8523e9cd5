"""What the two Gluon matmul kernels share: the GROUP_M tile order, and the warp that loads their stages.

Only kernel code lives here; `matmul_tf32_registers.py` and `matmul_pingpong.py` use it.

The loader is one warp of a warp-specialized kernel. It walks every (tile, K step) of its program in order
and fills a ring of shared-memory stages by TMA: it waits on a stage's "empty" mbarrier (the MMA warps
arrive there when they are done with it), tells its "ready" mbarrier how many bytes to expect, and starts
the two copies, whose arrival completes "ready". The ring position `step` picks the stage and the phase.
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
def load_partition(a_desc, b_desc, a_bufs, b_bufs, ready, empty, M, N, K, GROUP_M: gl.constexpr,
                   B_K_MAJOR: gl.constexpr):
    """The loader warp: every (tile, K step) of this program, in order, A's and B's tiles into the next stage.
    A is stored [M, K]; B [K, N], or [N, K] with B_K_MAJOR (its blocks are then [BLOCK_N, BLOCK_K])."""
    STAGES: gl.constexpr = a_bufs.type.shape[0]
    BLOCK_M: gl.constexpr = a_desc.block_type.shape[0]
    BLOCK_K: gl.constexpr = a_desc.block_type.shape[1]
    BLOCK_N: gl.constexpr = b_desc.block_type.shape[0] if B_K_MAJOR else b_desc.block_type.shape[1]
    tiles = gl.cdiv(M, BLOCK_M) * gl.cdiv(N, BLOCK_N)
    k_steps = gl.cdiv(K, BLOCK_K)
    step = 0  # the ring position, across tiles: it picks the stage and the mbarrier phase
    for tile in range(gl.program_id(0), tiles, gl.num_programs(0)):
        pid_m, pid_n = grouped_tile(tile, M, N, BLOCK_M, BLOCK_N, GROUP_M)
        for k in range(k_steps):
            stage = step % STAGES
            # A fresh mbarrier counts as having completed phase 1: the first round does not wait.
            mbarrier.wait(empty.index(stage), ((step // STAGES) & 1) ^ 1)
            mbarrier.expect(ready.index(stage), a_desc.block_type.nbytes + b_desc.block_type.nbytes)
            tma.async_copy_global_to_shared(a_desc, [pid_m * BLOCK_M, k * BLOCK_K], ready.index(stage),
                                            a_bufs.index(stage))
            if B_K_MAJOR:
                b_coords = [pid_n * BLOCK_N, k * BLOCK_K]
            else:
                b_coords = [k * BLOCK_K, pid_n * BLOCK_N]
            tma.async_copy_global_to_shared(b_desc, b_coords, ready.index(stage), b_bufs.index(stage))
            step += 1
