"""A probe kernel (Gluon): fp16/bf16 matmul whose two warp groups take turns on whole tiles ("ping-pong").

Used by `scripts/h200_pingpong_probe.py`; not part of the library.

tilelab's persistent kernel (`kernels/matmul_persistent.py`) runs 128x256 tiles with both warp groups on one
tile (64 rows each). While they convert and store a finished tile, the tensor cores wait. Here each warp group
owns whole tiles, alternately: group 0 computes the program's tiles 0, 2, 4, ..., group 1 tiles 1, 3, 5, ....
One loader warp fills a ring of stages in tile order, so group 1's first K steps arrive as group 0 releases
its last ones: group 1's MMAs then run while group 0 stores, and the other way round.

The groups also take turns explicitly: a group starts a tile's K loop only once the other has passed the
previous tile's (`turns`). Without that, group 1 would wait on a stage's "ready" barrier many rounds ahead
of where the ring is, and a barrier's wait only tells the parity of a round apart: it would take round 0's
data for its own (the first version of this kernel did, and faulted on the H200).

The price: a warp group's accumulator must fit its 128 threads' registers, so a tile is 128x128 or 64x256
(half of the persistent kernel's), which reads more of A and B per multiply-add.
"""

from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import (
    fence_async_shared,
    mbarrier,
    tma,
    warpgroup_mma,
    warpgroup_mma_wait,
)

from tilelab.kernels.matmul_tf32_registers import grouped_tile, load_partition


@gluon.jit
def store_tile(c_desc, c_smem, acc, off_m, off_n):
    """Store the accumulator through the staging buffer `c_smem`: whole, or in two halves when the buffer
    (C's descriptor block) is half the tile's width, which leaves shared memory for another stage."""
    BLOCK_M: gl.constexpr = acc.type.shape[0]
    BLOCK_N: gl.constexpr = acc.type.shape[1]
    tma.store_wait(0)  # this group's previous store has left the buffer
    if c_desc.block_type.shape[1] == BLOCK_N:
        c_smem.store(acc.to(c_desc.dtype))
        fence_async_shared()
        tma.async_copy_shared_to_global(c_desc, [off_m, off_n], c_smem)
    else:
        left, right = gl.split(gl.permute(gl.reshape(acc, (BLOCK_M, 2, BLOCK_N // 2)), (0, 2, 1)))
        c_smem.store(left.to(c_desc.dtype))
        fence_async_shared()
        tma.async_copy_shared_to_global(c_desc, [off_m, off_n], c_smem)
        tma.store_wait(0)
        c_smem.store(right.to(c_desc.dtype))
        fence_async_shared()
        tma.async_copy_shared_to_global(c_desc, [off_m, off_n + BLOCK_N // 2], c_smem)


@gluon.jit
def mma_partition(a_bufs, b_bufs, ready, empty, turns, c_desc, c_smem, M, N, K, GROUP_M: gl.constexpr,
                  TURN: gl.constexpr):
    """One warp group: the program's tiles TURN, TURN + 2, ...; K loop on the shared ring, then the store."""
    STAGES: gl.constexpr = a_bufs.type.shape[0]
    BLOCK_M: gl.constexpr = a_bufs.type.shape[1]
    BLOCK_K: gl.constexpr = a_bufs.type.shape[2]
    BLOCK_N: gl.constexpr = b_bufs.type.shape[2]
    acc_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                         instr_shape=[16, BLOCK_N, 16])
    tiles = gl.cdiv(M, BLOCK_M) * gl.cdiv(N, BLOCK_N)
    k_steps = gl.cdiv(K, BLOCK_K)
    programs = gl.num_programs(0)
    mine = TURN  # the program's own tile count: its ring positions start at mine * k_steps
    for tile in range(gl.program_id(0) + TURN * programs, tiles, 2 * programs):
        pid_m, pid_n = grouped_tile(tile, M, N, BLOCK_M, BLOCK_N, GROUP_M)
        step = mine * k_steps
        # The other group's K loop for the program's previous tile has begun its last step: the ring is
        # within a round of this tile's first step. (Completion c of turns[other] is its tile 2c + other.)
        mbarrier.wait(turns.index(1 - TURN), ((mine - 1) // 2) & 1, pred=mine > 0)
        acc = gl.zeros([BLOCK_M, BLOCK_N], gl.float32, acc_layout)
        for k in range(k_steps):
            stage = step % STAGES
            mbarrier.wait(ready.index(stage), (step // STAGES) & 1)
            acc = warpgroup_mma(a_bufs.index(stage), b_bufs.index(stage), acc, use_acc=k > 0, is_async=True)
            acc = warpgroup_mma_wait(num_outstanding=1, deps=(acc, ))
            # The previous step's wgmma is done: its stage goes back to the loader.
            mbarrier.arrive(empty.index((step + STAGES - 1) % STAGES), pred=k > 0)
            step += 1
        mbarrier.arrive(turns.index(TURN))  # the other group may start its next tile
        acc = warpgroup_mma_wait(num_outstanding=0, deps=(acc, ))
        mbarrier.arrive(empty.index((step + STAGES - 1) % STAGES))
        store_tile(c_desc, c_smem, acc, pid_m * BLOCK_M, pid_n * BLOCK_N)
        mine += 2
    tma.store_wait(0)


@gluon.jit
def matmul_pingpong_kernel(a_desc, b_desc, c_desc, M, N, K, GROUP_M: gl.constexpr, STAGES: gl.constexpr,
                           MMA_REGS: gl.constexpr, num_warps: gl.constexpr):
    """C[M, N] = A[M, K] @ B[K, N]: A [BLOCK_M, BLOCK_K], B [BLOCK_K, BLOCK_N] and C [BLOCK_M, BLOCK_N] (or
    [BLOCK_M, BLOCK_N / 2]: `store_tile`) blocks through row-major descriptors; num_warps must be 4 (one warp
    group per turn)."""
    BLOCK_M: gl.constexpr = a_desc.block_type.shape[0]
    BLOCK_K: gl.constexpr = a_desc.block_type.shape[1]
    BLOCK_N: gl.constexpr = b_desc.block_type.shape[1]
    a_bufs = gl.allocate_shared_memory(a_desc.dtype, [STAGES, BLOCK_M, BLOCK_K], a_desc.layout)
    b_bufs = gl.allocate_shared_memory(b_desc.dtype, [STAGES, BLOCK_K, BLOCK_N], b_desc.layout)
    c_first = gl.allocate_shared_memory(c_desc.dtype, c_desc.block_type.shape, c_desc.layout)
    c_second = gl.allocate_shared_memory(c_desc.dtype, c_desc.block_type.shape, c_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    turns = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    mbarrier.init(turns.index(0), count=1)
    mbarrier.init(turns.index(1), count=1)
    for stage in gl.static_range(STAGES):
        mbarrier.init(ready.index(stage), count=1)
        mbarrier.init(empty.index(stage), count=1)
    gl.warp_specialize([
        (mma_partition, (a_bufs, b_bufs, ready, empty, turns, c_desc, c_first, M, N, K, GROUP_M, 0)),
        (mma_partition, (a_bufs, b_bufs, ready, empty, turns, c_desc, c_second, M, N, K, GROUP_M, 1)),
        (load_partition, (a_desc, b_desc, a_bufs, b_bufs, ready, empty, M, N, K, GROUP_M)),
    ], [4, 1], [MMA_REGS, 24])
