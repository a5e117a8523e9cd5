"""tf32 matmul with a row-major B and no copy of it: B's tiles reach wgmma through registers (Gluon).

Only kernel code lives here; `tilelab.ops.matmul_registers` plans and launches it.

Why a different kernel: Hopper's tf32 `wgmma` reads shared-memory operands only K-major. A float32
B stored [K, N] is N-major, so the `@triton.jit` kernels either transpose every B tile inside the K loop
or need B copied to [N, K] first (the copy alone is 11% of torch's time at 4096^3 on the H200). But
wgmma's *left* operand may come from registers, where the order of the data does not matter. So each
program computes tiles of C^T = B^T A^T:

- A^T's tile is A's K-major TMA tile viewed transposed: a legal shared-memory operand as it is;
- B^T's tile is loaded from TMA's buffer into registers (`DotOperandLayout`), one K step at a time.

Triton's own pipeliner cannot overlap those register loads with the tensor cores (it waits for the
whole block before TMA may refill a buffer; `scripts/h200_tf32_register_probe.py` measured 0.88x torch).
Gluon, Triton's lower-level dialect, lets the kernel say exactly what should overlap:

- warp specialization: one extra warp only issues TMA loads and waits on "empty" mbarriers; the 8 MMA
  warps (two warp groups) only wait on "ready" mbarriers;
- each K step loads its registers while the previous step's wgmma still runs (one wgmma in flight);
  two steps per loop iteration, so that consecutive steps use different registers (otherwise ptxas must
  serialize the wgmmas, warning C7515);
- persistent: one program per SM walks tiles in GROUP_M order, so the loader fills the next tile's stages
  while the MMA warps store this one. The store goes through a staging buffer a quarter of the tile's
  size, which is what leaves room for 4 pipeline stages (227 KB of shared memory in all).

The accumulator holds C^T's [BLOCK_N, BLOCK_M] tile; the epilogue transposes it while storing.
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

from tilelab.kernels.gluon_loader import grouped_tile, load_partition


@gluon.jit
def round_to_tf32(x):
    """x rounded to tf32's 10-bit mantissa, to nearest (ties away from zero). Left to itself, wgmma
    drops the low 13 bits: it truncates."""
    return gl.inline_asm_elementwise("cvt.rna.tf32.f32 $0, $1;", "=r,r", [x], dtype=gl.float32, is_pure=True,
                                     pack=1)


@gluon.jit
def mma_step(step, k, acc, a_bufs, b_bufs, ready, empty, b_layout: gl.constexpr, ROUND_B: gl.constexpr):
    """K step `k` of a tile (global step `step`): B^T's tile into registers (rounded to tf32 if ROUND_B), an
    asynchronous wgmma on it, then wait for the previous step's wgmma and hand its stage back to the loader."""
    STAGES: gl.constexpr = a_bufs.type.shape[0]
    stage = step % STAGES
    mbarrier.wait(ready.index(stage), (step // STAGES) & 1)
    b_t = b_bufs.index(stage).permute((1, 0)).load(b_layout)
    if ROUND_B:
        b_t = round_to_tf32(b_t)
    acc = warpgroup_mma(b_t, a_bufs.index(stage).permute((1, 0)), acc, use_acc=k > 0, is_async=True)
    acc, b_t = warpgroup_mma_wait(num_outstanding=1, deps=(acc, b_t))
    mbarrier.arrive(empty.index((step + STAGES - 1) % STAGES), pred=step > 0)
    return acc


@gluon.jit
def store_transposed(c_desc, c_smem, acc, off_m, off_n):
    """Store C^T's tile `acc` [BLOCK_N, BLOCK_M] as C's rows [off_m, off_m + BLOCK_M), a quarter at a time
    through `c_smem` ([BLOCK_M / 4, BLOCK_N], converted to C's dtype)."""
    BLOCK_N: gl.constexpr = acc.type.shape[0]
    BLOCK_M: gl.constexpr = acc.type.shape[1]
    QUARTER: gl.constexpr = BLOCK_M // 4
    # m = 2 * QUARTER * a + QUARTER * b + r: every thread already holds whole quarters, so the splits
    # below only rename registers.
    parts = gl.permute(gl.reshape(acc, (BLOCK_N, 2, 2, QUARTER)), (0, 3, 1, 2))
    low, high = gl.split(parts)  # b = 0 and b = 1
    q0, q2 = gl.split(low)
    q1, q3 = gl.split(high)
    tma.store_wait(0)  # the previous tile's last store has left the buffer
    c_smem.store(gl.permute(q0, (1, 0)).to(c_desc.dtype))
    fence_async_shared()
    tma.async_copy_shared_to_global(c_desc, [off_m, off_n], c_smem)
    tma.store_wait(0)
    c_smem.store(gl.permute(q1, (1, 0)).to(c_desc.dtype))
    fence_async_shared()
    tma.async_copy_shared_to_global(c_desc, [off_m + QUARTER, off_n], c_smem)
    tma.store_wait(0)
    c_smem.store(gl.permute(q2, (1, 0)).to(c_desc.dtype))
    fence_async_shared()
    tma.async_copy_shared_to_global(c_desc, [off_m + 2 * QUARTER, off_n], c_smem)
    tma.store_wait(0)
    c_smem.store(gl.permute(q3, (1, 0)).to(c_desc.dtype))
    fence_async_shared()
    tma.async_copy_shared_to_global(c_desc, [off_m + 3 * QUARTER, off_n], c_smem)


@gluon.jit
def mma_partition(a_bufs, b_bufs, ready, empty, c_desc, c_smem, M, N, K, GROUP_M: gl.constexpr,
                  BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, BLOCK_K: gl.constexpr, ROUND_B: gl.constexpr,
                  num_warps: gl.constexpr):
    """The MMA warps (the default partition): every tile this program owns, K loop then epilogue."""
    # Warps stacked along C^T's rows (N): each warp group owns 64 of them, all BLOCK_M columns (wgmma's N).
    acc_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[num_warps, 1],
                                                         instr_shape=[16, BLOCK_M, 8])
    b_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=acc_layout, k_width=1)
    tiles = gl.cdiv(M, BLOCK_M) * gl.cdiv(N, BLOCK_N)
    k_steps = gl.cdiv(K, BLOCK_K)
    step = 0
    for tile in range(gl.program_id(0), tiles, gl.num_programs(0)):
        pid_m, pid_n = grouped_tile(tile, M, N, BLOCK_M, BLOCK_N, GROUP_M)
        acc = gl.zeros([BLOCK_N, BLOCK_M], gl.float32, acc_layout)
        for pair in range(k_steps // 2):
            acc = mma_step(step, 2 * pair, acc, a_bufs, b_bufs, ready, empty, b_layout, ROUND_B)
            acc = mma_step(step + 1, 2 * pair + 1, acc, a_bufs, b_bufs, ready, empty, b_layout, ROUND_B)
            step += 2
        if k_steps % 2 == 1:
            acc = mma_step(step, k_steps - 1, acc, a_bufs, b_bufs, ready, empty, b_layout, ROUND_B)
            step += 1
        acc = warpgroup_mma_wait(num_outstanding=0, deps=(acc,))
        store_transposed(c_desc, c_smem, acc, pid_m * BLOCK_M, pid_n * BLOCK_N)
    tma.store_wait(0)


@gluon.jit
def matmul_tf32_registers_kernel(a_desc, b_desc, c_desc, M, N, K, GROUP_M: gl.constexpr, STAGES: gl.constexpr,
                                 ROUND_B: gl.constexpr, num_warps: gl.constexpr):
    """C[M, N] = A[M, K] @ B[K, N] in tf32: A [BLOCK_M, BLOCK_K] and B [BLOCK_K, BLOCK_N] tiles through
    `a_desc` and `b_desc` (both row-major, float32), C through `c_desc` ([BLOCK_M / 4, BLOCK_N] blocks).
    ROUND_B: B's values rounded to tf32 on their way through registers (A's, read from shared memory by
    wgmma, are truncated)."""
    BLOCK_M: gl.constexpr = a_desc.block_type.shape[0]
    BLOCK_K: gl.constexpr = a_desc.block_type.shape[1]
    BLOCK_N: gl.constexpr = b_desc.block_type.shape[1]
    a_bufs = gl.allocate_shared_memory(a_desc.dtype, [STAGES, BLOCK_M, BLOCK_K], a_desc.layout)
    b_bufs = gl.allocate_shared_memory(b_desc.dtype, [STAGES, BLOCK_K, BLOCK_N], b_desc.layout)
    c_smem = gl.allocate_shared_memory(c_desc.dtype, c_desc.block_type.shape, c_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    for stage in gl.static_range(STAGES):
        mbarrier.init(ready.index(stage), count=1)
        mbarrier.init(empty.index(stage), count=1)
    gl.warp_specialize([
        (mma_partition, (a_bufs, b_bufs, ready, empty, c_desc, c_smem, M, N, K, GROUP_M,
                         BLOCK_M, BLOCK_N, BLOCK_K, ROUND_B, num_warps)),
        (load_partition, (a_desc, b_desc, a_bufs, b_bufs, ready, empty, M, N, K, 1, GROUP_M, False, False)),
    ], [1], [24])  # one loader warp with the fewest registers; the MMA warps get the rest
