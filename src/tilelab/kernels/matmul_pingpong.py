"""fp16/bf16 matmul whose two warp groups take turns on whole tiles ("ping-pong"), persistent, in Gluon.

Only kernel code lives here; `tilelab.ops.matmul_pingpong` plans and launches it.

Why a second persistent kernel: in `kernels/matmul_persistent.py` both warp groups share each 128x256 tile,
so both stop for its epilogue (convert, stage, store) and the tensor cores wait. With a short K a tile's
K loop is short too, and that wait is a large share of the time: at 8192x8192x1024 the persistent kernel
ran at 0.99x torch on the H200, this one at 1.07x. Here:

- each warp group (4 warps) owns whole 128x128 tiles, alternately: group 0 the program's tiles 0, 2, 4, ...,
  group 1 tiles 1, 3, 5, ...; while one group stores a finished tile, the other's MMAs run;
- one loader warp fills a ring of stages in tile order (A's and B's tiles by TMA, "ready" and "empty"
  mbarriers: `gluon_loader.load_partition`, shared with `matmul_tf32_registers`);
- the groups start their K loops in turn (`turns`, one mbarrier per group). Without that, group 1 would
  wait on a stage's "ready" barrier many rounds before the ring gets there; an mbarrier wait only tells a
  round's parity, so it would take an earlier round's data (this kernel's first version did, and faulted);
- a tile is stored half a tile wide at a time through a [128, 64] staging buffer per group, which leaves
  shared memory for 6 stages (224 KB in all).

The price of 128x128 tiles: more reads of A and B per multiply-add than 128x256, which is why the persistent
kernel stays ahead with a long K (at 4096x4096x11008: 1.00x torch against 0.96x), unless its larger tiles leave
the last wave emptier (at 4096x5504x4096: 0.94x against 1.02x).
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

from tilelab.kernels.gluon_loader import (
    block_shape,
    copy_out,
    grouped_tile,
    load_partition,
    matrix_and_tile,
    ring_layout,
)


@gluon.jit
def reciprocal(x):
    """1 / x from the special-function unit's reciprocal (`rcp.approx.ftz`, within 1 ulp), without the range
    fix-ups `1.0 / x` compiles to: on sm_90 those are five more instructions per value, issued by the warp group
    that stores while the other one multiplies."""
    return gl.inline_asm_elementwise("rcp.approx.ftz.f32 $0, $1;", "=r,r", [x], dtype=gl.float32, is_pure=True,
                                     pack=1)


@gluon.jit
def exp2(x):
    """2 ** x from the special-function unit (`ex2.approx.ftz`), without the fix-ups for results below 2**-126
    (which this flushes to 0: GELU's and SiLU's tails there are far below any float32 output's rounding)."""
    return gl.inline_asm_elementwise("ex2.approx.ftz.f32 $0, $1;", "=r,r", [x], dtype=gl.float32, is_pure=True,
                                     pack=1)


@gluon.jit
def gelu(x):
    """`kernels.matmul.gelu` in Gluon: x * (1 + erf(x / sqrt(2))) / 2, erf by Abramowitz and Stegun's 7.1.26
    (|error| <= 1.5e-7), with z = |x| / sqrt(2) folded into the constants and the SFU's reciprocal and
    exponential: 16 instructions per value on sm_90, where `1.0 / t` and `exp` made 30. libdevice's erff made
    this kernel 2.2x slower (results/h200-linear-epilogue-probe-libdevice.log)."""
    t = reciprocal(1.0 + (0.3275911 * 0.7071067811865476) * gl.abs(x))
    q = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    tail = q * exp2((x * x) * (-0.5 * 1.4426950408889634))  # 1 - erf(|x| / sqrt(2)): exp(-x^2 / 2) in base 2
    return 0.5 * x * gl.where(x >= 0, 2.0 - tail, tail)


@gluon.jit
def apply_epilogue(half, bias_ptr, off_n, N, ACTIVATION: gl.constexpr):
    """`tilelab.linear`'s epilogue on a float32 block of the accumulator whose first column is column off_n of C:
    + bias (read in float32, columns past N masked), then ACTIVATION ("relu", "gelu" in its exact erf form,
    "silu"; "" for none). Gluon's version of `kernels.matmul.apply_epilogue`: the bias is loaded straight into
    the block's own layout (a slice of it along the rows), so each thread reads only the columns it holds."""
    if bias_ptr is not None:
        cols = off_n + gl.arange(0, half.type.shape[1], layout=gl.SliceLayout(0, half.type.layout))
        bias = gl.load(bias_ptr + cols, mask=cols < N, other=0.0).to(gl.float32)
        half = half + gl.expand_dims(bias, 0)
    if ACTIVATION == "relu":
        half = gl.maximum(half, 0.0)
    elif ACTIVATION == "gelu":
        half = gelu(half)
    elif ACTIVATION == "silu":
        half = half * reciprocal(1.0 + exp2(half * -1.4426950408889634))  # x * sigmoid(x)
    return half


@gluon.jit
def store_tile(c_desc, c_smem, acc, matrix, off_m, off_n, N, bias_ptr, ACTIVATION: gl.constexpr):
    """Store the accumulator [BLOCK_M, BLOCK_N] into matrix `matrix` of C (`copy_out`) as two halves, one after
    the other, through `c_smem` ([BLOCK_M, BLOCK_N / 2], C's block), converted to C's dtype. bias_ptr and
    ACTIVATION (`tilelab.linear`; None and "" for none): `apply_epilogue` on each half as it is stored, so its
    temporaries live for half a tile at a time."""
    BLOCK_M: gl.constexpr = acc.type.shape[0]
    BLOCK_N: gl.constexpr = acc.type.shape[1]
    left, right = gl.split(gl.permute(gl.reshape(acc, (BLOCK_M, 2, BLOCK_N // 2)), (0, 2, 1)))
    if bias_ptr is not None or ACTIVATION != "":
        left = apply_epilogue(left, bias_ptr, off_n, N, ACTIVATION)
    tma.store_wait(0)  # this group's previous store has left the buffer
    c_smem.store(left.to(c_desc.dtype))
    fence_async_shared()
    copy_out(c_desc, matrix, off_m, off_n, c_smem)
    if bias_ptr is not None or ACTIVATION != "":
        right = apply_epilogue(right, bias_ptr, off_n + BLOCK_N // 2, N, ACTIVATION)
    tma.store_wait(0)
    c_smem.store(right.to(c_desc.dtype))
    fence_async_shared()
    copy_out(c_desc, matrix, off_m, off_n + BLOCK_N // 2, c_smem)


@gluon.jit
def mma_partition(a_bufs, b_bufs, ready, empty, turns, c_desc, c_smem, M, N, K, MATRICES, GROUP_M: gl.constexpr,
                  B_K_MAJOR: gl.constexpr, BATCHED: gl.constexpr, TURN: gl.constexpr, bias_ptr,
                  ACTIVATION: gl.constexpr):
    """One warp group: the program's tiles TURN, TURN + 2, ...; its K loop on the shared ring, then the store."""
    STAGES: gl.constexpr = a_bufs.type.shape[0]
    BLOCK_M: gl.constexpr = a_bufs.type.shape[1]
    BLOCK_K: gl.constexpr = a_bufs.type.shape[2]
    BLOCK_N: gl.constexpr = b_bufs.type.shape[1] if B_K_MAJOR else b_bufs.type.shape[2]
    acc_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                         instr_shape=[16, BLOCK_N, 16])
    tiles = gl.cdiv(M, BLOCK_M) * gl.cdiv(N, BLOCK_N)
    k_steps = gl.cdiv(K, BLOCK_K)
    programs = gl.num_programs(0)
    mine = TURN  # the program's tile count so far: this tile's ring positions start at mine * k_steps
    for tile in range(gl.program_id(0) + TURN * programs, MATRICES * tiles, 2 * programs):
        matrix, within = matrix_and_tile(tile, tiles, BATCHED)
        pid_m, pid_n = grouped_tile(within, M, N, BLOCK_M, BLOCK_N, GROUP_M)
        step = mine * k_steps
        # Wait for the other group to reach the last K step of the program's previous tile: the ring is then
        # within a round of this tile's first step. (Arrival c on turns[g] ends group g's tile 2c + g.)
        mbarrier.wait(turns.index(1 - TURN), ((mine - 1) // 2) & 1, pred=mine > 0)
        acc = gl.zeros([BLOCK_M, BLOCK_N], gl.float32, acc_layout)
        for k in range(k_steps):
            stage = step % STAGES
            mbarrier.wait(ready.index(stage), (step // STAGES) & 1)
            b = b_bufs.index(stage)
            if B_K_MAJOR:
                b = b.permute((1, 0))
            acc = warpgroup_mma(a_bufs.index(stage), b, acc, use_acc=k > 0, is_async=True)
            acc = warpgroup_mma_wait(num_outstanding=1, deps=(acc, ))
            # The previous step's wgmma is done: its stage goes back to the loader.
            mbarrier.arrive(empty.index((step + STAGES - 1) % STAGES), pred=k > 0)
            step += 1
        mbarrier.arrive(turns.index(TURN))  # the other group may start its next tile
        acc = warpgroup_mma_wait(num_outstanding=0, deps=(acc, ))
        mbarrier.arrive(empty.index((step + STAGES - 1) % STAGES))
        store_tile(c_desc, c_smem, acc, matrix, pid_m * BLOCK_M, pid_n * BLOCK_N, N, bias_ptr, ACTIVATION)
        mine += 2
    tma.store_wait(0)


@gluon.jit
def matmul_pingpong_kernel(a_desc, b_desc, c_desc, M, N, K, MATRICES, GROUP_M: gl.constexpr, STAGES: gl.constexpr,
                           B_K_MAJOR: gl.constexpr, BATCHED: gl.constexpr, MMA_REGS: gl.constexpr,
                           num_warps: gl.constexpr, bias_ptr=None, ACTIVATION: gl.constexpr = ""):
    """C[M, N] = A[M, K] @ B[K, N] through descriptors of A ([BLOCK_M, BLOCK_K] blocks, stored [M, K]), B
    ([BLOCK_K, BLOCK_N] blocks of B stored [K, N], or [BLOCK_N, BLOCK_K] of B stored [N, K] with B_K_MAJOR) and
    C ([BLOCK_M, BLOCK_N / 2] blocks). BATCHED: C holds MATRICES products (a 3-D descriptor), and an operand
    with a 3-D descriptor a matrix for each (`copy_in`); MATRICES is 1 if not.
    num_warps must be 4: one warp group per turn. MMA_REGS: the registers each thread of the second group gets
    (the first gets what the loader warp and it leave). bias_ptr, ACTIVATION: `tilelab.linear`'s epilogue
    (`apply_epilogue`); left at their defaults, the kernel compiles as it did before the epilogue existed."""
    a_block: gl.constexpr = block_shape(a_desc)
    b_block: gl.constexpr = block_shape(b_desc)
    a_bufs = gl.allocate_shared_memory(a_desc.dtype, [STAGES, a_block[0], a_block[1]], ring_layout(a_desc))
    b_bufs = gl.allocate_shared_memory(b_desc.dtype, [STAGES, b_block[0], b_block[1]], ring_layout(b_desc))
    c_first = gl.allocate_shared_memory(c_desc.dtype, block_shape(c_desc), ring_layout(c_desc))
    c_second = gl.allocate_shared_memory(c_desc.dtype, block_shape(c_desc), ring_layout(c_desc))
    ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    turns = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    for stage in gl.static_range(STAGES):
        mbarrier.init(ready.index(stage), count=1)
        mbarrier.init(empty.index(stage), count=1)
    mbarrier.init(turns.index(0), count=1)
    mbarrier.init(turns.index(1), count=1)
    gl.warp_specialize([
        (mma_partition, (a_bufs, b_bufs, ready, empty, turns, c_desc, c_first, M, N, K, MATRICES, GROUP_M,
                         B_K_MAJOR, BATCHED, 0, bias_ptr, ACTIVATION)),
        (mma_partition, (a_bufs, b_bufs, ready, empty, turns, c_desc, c_second, M, N, K, MATRICES, GROUP_M,
                         B_K_MAJOR, BATCHED, 1, bias_ptr, ACTIVATION)),
        (load_partition, (a_desc, b_desc, a_bufs, b_bufs, ready, empty, M, N, K, MATRICES, GROUP_M, B_K_MAJOR,
                           BATCHED)),
    ], [4, 1], [MMA_REGS, 24])
