"""Probe kernel: tf32 matmul in Gluon with B fed to wgmma from registers (no copy of B).

Hopper's tf32 wgmma reads shared-memory operands only K-major. B stored [K, N] is N-major, so the
library copies it. This kernel computes each tile of C^T = B^T A^T instead: A^T's tile is A's
K-major TMA tile seen transposed (a legal right operand), and B^T's tile goes from TMA's buffer into
registers, which wgmma takes in any order as its left operand. One warp issues the TMA loads
(warp specialization), so the MMA warps only wait on mbarriers, and each step's register load
overlaps the previous step's wgmma.

Two variants were probed in calls XX and YY: one program per tile (here) and the persistent kernel, which
became the library's (`tilelab.kernels.matmul_tf32_registers`; it was a copy of it here then, and
`launch_persistent` now runs the library's). The tile kernel shares the library's K step and tile order.
"""

import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import (
    fence_async_shared,
    mbarrier,
    tma,
    warpgroup_mma_wait,
)
from triton.experimental.gluon.nvidia.hopper import TensorDescriptor

from tilelab.kernels.gluon_loader import grouped_tile
from tilelab.kernels.matmul_tf32_registers import mma_step


@gluon.jit
def _load_partition(a_desc, b_desc, a_bufs, b_bufs, ready, empty, off_m, off_n, k_steps):
    STAGES: gl.constexpr = a_bufs.type.shape[0]
    BLOCK_K: gl.constexpr = a_desc.block_type.shape[1]
    for i in range(k_steps):
        s = i % STAGES
        phase = (i // STAGES) & 1
        # A fresh mbarrier counts as having completed phase 1, so the first round does not wait.
        mbarrier.wait(empty.index(s), phase ^ 1)
        mbarrier.expect(ready.index(s), a_desc.block_type.nbytes + b_desc.block_type.nbytes)
        tma.async_copy_global_to_shared(a_desc, [off_m, i * BLOCK_K], ready.index(s), a_bufs.index(s))
        tma.async_copy_global_to_shared(b_desc, [i * BLOCK_K, off_n], ready.index(s), b_bufs.index(s))


@gluon.jit
def _mma_partition(a_bufs, b_bufs, ready, empty, k_steps, BLOCK_N: gl.constexpr, BLOCK_M: gl.constexpr,
                   num_warps: gl.constexpr):
    acc_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[num_warps, 1],
                                                         instr_shape=[16, BLOCK_M, 8])
    frag_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=acc_layout, k_width=1)
    acc = gl.zeros([BLOCK_N, BLOCK_M], gl.float32, acc_layout)
    # Two steps per iteration: each step's registers are loaded while the other step's wgmma runs,
    # so consecutive steps must not share registers (ptxas would serialize the wgmmas).
    for j in range(k_steps // 2):  # one tile per program: its K steps are the global steps
        acc = mma_step(2 * j, 2 * j, acc, a_bufs, b_bufs, ready, empty, frag_layout)
        acc = mma_step(2 * j + 1, 2 * j + 1, acc, a_bufs, b_bufs, ready, empty, frag_layout)
    if k_steps % 2 == 1:
        acc = mma_step(k_steps - 1, k_steps - 1, acc, a_bufs, b_bufs, ready, empty, frag_layout)
    acc = warpgroup_mma_wait(num_outstanding=0, deps=(acc,))
    return (acc,)


@gluon.jit
def matmul_tf32_tile_kernel(a_desc, b_desc, c_desc, M, N, K, GROUP_M: gl.constexpr, STAGES: gl.constexpr,
                            num_warps: gl.constexpr):
    BLOCK_M: gl.constexpr = a_desc.block_type.shape[0]
    BLOCK_K: gl.constexpr = a_desc.block_type.shape[1]
    BLOCK_N: gl.constexpr = b_desc.block_type.shape[1]

    pid_m, pid_n = grouped_tile(gl.program_id(0), M, N, BLOCK_M, BLOCK_N, GROUP_M)
    off_m = pid_m * BLOCK_M
    off_n = pid_n * BLOCK_N
    k_steps = gl.cdiv(K, BLOCK_K)

    a_bufs = gl.allocate_shared_memory(a_desc.dtype, [STAGES, BLOCK_M, BLOCK_K], a_desc.layout)
    b_bufs = gl.allocate_shared_memory(b_desc.dtype, [STAGES, BLOCK_K, BLOCK_N], b_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    for s in gl.static_range(STAGES):
        mbarrier.init(ready.index(s), count=1)
        mbarrier.init(empty.index(s), count=1)

    acc, = gl.warp_specialize([
        (_mma_partition, (a_bufs, b_bufs, ready, empty, k_steps, BLOCK_N, BLOCK_M, num_warps)),
        (_load_partition, (a_desc, b_desc, a_bufs, b_bufs, ready, empty, off_m, off_n, k_steps)),
    ], [1], [24])

    # acc holds C^T's tile; store it transposed, in halves to keep the staging buffer small.
    SUB_N: gl.constexpr = c_desc.block_type.shape[1]
    c_smem = gl.allocate_shared_memory(c_desc.dtype, c_desc.block_type.shape, c_desc.layout)
    c_tile = gl.permute(acc, (1, 0))
    if SUB_N == BLOCK_N:
        c_smem.store(c_tile)
        fence_async_shared()
        tma.async_copy_shared_to_global(c_desc, [off_m, off_n], c_smem)
    else:
        halves = gl.permute(gl.reshape(c_tile, (BLOCK_M, 2, SUB_N)), (0, 2, 1))
        left, right = gl.split(halves)
        c_smem.store(left)
        fence_async_shared()
        tma.async_copy_shared_to_global(c_desc, [off_m, off_n], c_smem)
        tma.store_wait(0)
        c_smem.store(right)
        fence_async_shared()
        tma.async_copy_shared_to_global(c_desc, [off_m, off_n + SUB_N], c_smem)
    tma.store_wait(0)


def launch_persistent(a, b, c, block_m=256, block_n=128, block_k=32, stages=4, group_m=8, num_warps=8):
    """The library's persistent registers kernel with these tiles (`tilelab.ops.matmul_registers.launch`)."""
    from tilelab.ops.matmul_hopper import device_sms
    from tilelab.ops.matmul_registers import RegistersConfig
    from tilelab.ops.matmul_registers import launch as library_launch

    config = RegistersConfig(block_m, block_n, block_k, stages, group_m, num_warps)
    return library_launch(a, b, c, config, device_sms(a.device))[0]


def descriptors(a, b, c, block_m, block_n, block_k, sub_n):
    def desc(t, block):
        return TensorDescriptor.from_tensor(t, block, gl.NVMMASharedLayout.get_default_for(block, gl.float32))
    return desc(a, [block_m, block_k]), desc(b, [block_k, block_n]), desc(c, [block_m, sub_n])


def launch(a, b, c, block_m=256, block_n=128, block_k=32, stages=3, group_m=8, num_warps=8, subtile=True,
           maxnreg=None):
    M, K = a.shape
    N = b.shape[1]
    sub_n = block_n // 2 if subtile else block_n
    a_desc, b_desc, c_desc = descriptors(a, b, c, block_m, block_n, block_k, sub_n)
    grid = (triton.cdiv(M, block_m) * triton.cdiv(N, block_n),)
    extra = {} if maxnreg is None else {"maxnreg": maxnreg}
    return matmul_tf32_tile_kernel[grid](a_desc, b_desc, c_desc, M, N, K, group_m, stages, num_warps=num_warps,
                                         **extra)


def compile_for_sm90(block_m=256, block_n=128, block_k=32, stages=3, group_m=8, num_warps=8, subtile=True,
                     maxnreg=None):
    """Compile without a GPU (PTX and metadata), for checking shared memory, registers and instructions."""
    import torch
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource
    from triton.runtime.jit import mangle_type

    sub_n = block_n // 2 if subtile else block_n
    a, b, c = (torch.empty(4096, 4096) for _ in range(3))
    descs = descriptors(a, b, c, block_m, block_n, block_k, sub_n)
    signature = {name: mangle_type(d) for name, d in zip(("a_desc", "b_desc", "c_desc"), descs, strict=True)}
    signature.update(M="i32", N="i32", K="i32", GROUP_M="constexpr", STAGES="constexpr", num_warps="constexpr")
    constexprs = {"GROUP_M": group_m, "STAGES": stages, "num_warps": num_warps}
    source = GluonASTSource(matmul_tf32_tile_kernel, signature, constexprs)
    options = {"num_warps": num_warps}
    if maxnreg is not None:
        options["maxnreg"] = maxnreg
    return triton.compile(source, target=GPUTarget("cuda", 90, 32), options=options)


if __name__ == "__main__":
    import re
    import sys

    for kw in ({}, {"stages": 4}, {"block_m": 128, "block_n": 128}, {"block_m": 256, "block_n": 128, "stages": 4,
                                                                        "subtile": False}):
        try:
            k = compile_for_sm90(**kw)
        except Exception as exc:  # noqa: BLE001 - a probe reports every failure
            print(kw, "FAILED", str(exc).splitlines()[-1][:300])
            continue
        ptx = k.asm["ptx"]
        census = {name: len(re.findall(pat, ptx)) for name, pat in
                  (("wgmma", r"wgmma\.mma_async"), ("tma load", r"cp\.async\.bulk\.tensor.*global"),
                   ("ld.shared", r"ld\.shared"), ("st.shared", r"st\.shared"), ("bar.sync", r"bar\.sync"),
                   ("setmaxnreg", r"setmaxnreg"), ("mbarrier.arrive", r"mbarrier\.arrive"))}
        print(kw, "shared", k.metadata.shared, "regs", getattr(k, "n_regs", None), census)
        if "-v" in sys.argv:
            print(sorted(set(re.findall(r"wgmma\.mma_async[^ ]*", ptx))))

