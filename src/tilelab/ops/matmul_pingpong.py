"""The "pingpong" path of `tilelab.matmul`: fp16/bf16 on Hopper, its warp groups taking turns on whole tiles
(a Gluon kernel); the default where K is short or its tiles fill the last wave better.

`tilelab.ops.matmul_plan` asks `unsupported_reason` whether a problem fits and `pays_off` whether to take it
instead of the persistent kernel; `tilelab.ops.matmul` calls `launch`. The kernel and why it exists:
`tilelab.kernels.matmul_pingpong`.
"""

import dataclasses

import torch

from tilelab import contracts
from tilelab.ops import gluon_launch
from tilelab.tuning import ceil_div, tile_count


@dataclasses.dataclass(frozen=True)
class PingPongConfig:
    """The kernel's one configuration: each warp group's 128x128 tile, K steps of 64, a ring of 6 stages."""

    block_m: int = 128
    block_n: int = 128
    block_k: int = 64
    num_stages: int = 6
    group_m: int = 8
    num_warps: int = 4  # per warp group; the loader warp comes on top
    mma_regs: int = 232  # registers per thread of the second group (the first gets what is left, 248)

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)


# Measured on the H200 against torch.mm in turns (results/h200-pingpong-probe*.log, calls IIII-KKKK): 4 stages
# with a whole-tile staging buffer 0.91x torch at 4096^3, 5 stages 0.96-0.97x, 6 with the half-width buffer
# 0.99x; 128x128x32 in 12 stages 0.92-0.97x; 64x256 tiles 0.89-0.94x.
DEFAULT_CONFIG = PingPongConfig()
# A float32 C doubles the two staging buffers (64 KB): one stage fewer fits beside them.
FLOAT32_OUTPUT_CONFIG = dataclasses.replace(DEFAULT_CONFIG, num_stages=5)


def config_for(out_dtype: torch.dtype) -> PingPongConfig:
    """The configuration whose stages and staging buffers fit a program's shared memory for this C dtype."""
    return FLOAT32_OUTPUT_CONFIG if out_dtype == torch.float32 else DEFAULT_CONFIG


# The persistent kernel's 128x256 tiles read less of A and B per multiply-add; this kernel's tiles keep the
# tensor cores busy through epilogues, and being half the size, they can fill the last wave better. fp16 in
# turns, this kernel against the persistent kernel (the default before it), torch = 1 (calls JJJJ, KKKK, NNNN):
#   K = 512:   8192x8192 1.08x / 0.80x
#   K = 1024:  8192x8192 1.07x / 0.99x (bf16 1.07x / 1.00x); 8192x4096 1.04x / 0.90x; 4096x4096 1.03x / 0.90x;
#              2048x8192 1.04x / 0.91x
#   K = 2048:  8192x8192 1.01x / 0.98x; 4096x4096 1.02x / 0.98x; 4096x8192 1.00x / 0.95x
#   K = 4096, a last wave the smaller tiles fill better (`waves_in_tiles` 21 against 22, 11 against 12, 13
#              against 14): 4096x11008 1.05x / 1.03x, 11008x4096 1.04x / 1.02x, 4096x5504 1.02x / 0.94x,
#              5120x5120 0.96x / 0.89x
#   K = 4096, the same waves: 4096x4096 0.99x / 1.00x (bf16 0.99x / 1.00x); 6144x6144 1.00x / 1.00x;
#              8192x11008 1.00x / 0.99x; 3072x8192 0.99x / 0.98x
#   K = 8192:  8192x8192 1.00x / 1.03x;   K = 11008: 4096x4096 0.96x / 1.00x
PINGPONG_MAX_K = 2048

# A batch, kernel-bench against torch.matmul, this kernel / the persistent kernel (calls WWWW, XXXX; fp16, bf16 where
# both ran): K = 4096 4x4096^3 0.97x / 0.93x and 1.04x / 1.00x, 2x4096^3 1.03x / 1.01x; K = 8192 2x2048x2048x8192
# 0.97x / 1.00x. Below K = 4096 it led at every batch whose rows sit on sectors and whose tiles outnumber the SMs
# (K = 64 to 2048, 0.94-1.09x). Where they do not, one program per tile led: 2x1024^3 (128 tiles of 128x128) 1.01x
# against 0.95x, 4x512^3 1.03x against 0.84x, 128x128^3 1.02x against 0.93x. With one tile per program, the second
# warp group has nothing to do.
BATCH_PINGPONG_MAX_K = 4096


def waves_in_tiles(m: int, n: int, config, sms: int, matrices: int = 1) -> int:
    """How long the busiest program of a persistent grid runs, counted in 128x128 tiles: its share of
    `config`'s tiles (of each of `matrices` C [m, n]) over the persistent grid
    (`gluon_launch.persistent_programs`), each tile block_m * block_n / 128^2 of them."""
    tiles = matrices * tile_count(m, n, config)
    per_program = ceil_div(tiles, gluon_launch.persistent_programs(m, n, config, sms, matrices))
    return per_program * config.block_m * config.block_n // (128 * 128)


def unsupported_reason(a3: torch.Tensor, b3: torch.Tensor) -> str | None:
    """Why the ping-pong kernel cannot compute this [batch, M, K] @ [batch, K, N] problem; None if it can."""
    from tilelab.ops.matmul_plan import operand_layout

    if a3.dtype not in (torch.float16, torch.bfloat16):
        return f"it is a float16/bfloat16 kernel; a and b are {a3.dtype}"
    unavailable = gluon_launch.unavailable_reason(a3.device)
    if unavailable is not None:
        return unavailable
    a_layout = operand_layout(a3)
    if not (a_layout.tma_ok and a_layout.row_major):
        return (f"a must be row-major (unit stride along its last dimension) with a 16-byte aligned data pointer, "
                f"row stride and batch stride; got shape {tuple(a3.shape)} strides {a3.stride()}")
    if not operand_layout(b3).tma_ok:
        return (f"b must have a unit stride along one of its last two dimensions, a 16-byte aligned data pointer, "
                f"row stride and batch stride; got shape {tuple(b3.shape)} strides {b3.stride()}")
    return None


def pays_off(m: int, n: int, k: int, sms: int, matrices: int = 1) -> bool:
    """Whether `tilelab.matmul` takes this path: for one GEMM, where it would take the persistent kernel, a short
    K or tiles that end sooner than the persistent kernel's default 128x256 ones (`waves_in_tiles`); for a batch
    of `matrices`, K up to BATCH_PINGPONG_MAX_K and a tile for each warp group of the busiest program."""
    from tilelab.ops.matmul_hopper import PERSISTENT_CANDIDATES

    if matrices > 1:
        return k <= BATCH_PINGPONG_MAX_K and waves_in_tiles(m, n, DEFAULT_CONFIG, sms, matrices) >= 2
    return k <= PINGPONG_MAX_K or (waves_in_tiles(m, n, DEFAULT_CONFIG, sms)
                                   < waves_in_tiles(m, n, PERSISTENT_CANDIDATES[0], sms))


def require_supported(a3: torch.Tensor, b3: torch.Tensor) -> None:
    reason = unsupported_reason(a3, b3)
    if reason is not None:
        raise contracts.ContractError(f"path='pingpong' cannot take these operands: {reason}. Leave path=None "
                                      "to let tilelab choose.")


def descriptors(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, config: PingPongConfig = DEFAULT_CONFIG):
    """Gluon tensor descriptors of A [.., M, K] ([block_m, block_k] blocks), B ([block_k, block_n] blocks of a
    row-major B; [block_n, block_k] of B stored [.., N, K], i.e. a `b` whose rows are K's) and C [.., M, N]
    ([block_m, block_n / 2]: the staging buffer). 2-D views give 2-D descriptors; a [batch, rows, cols] view
    of more than one matrix gives a 3-D one (`gluon_launch.describe`)."""
    b_k_major = not gluon_launch.stored_row_major(b)
    b_stored = b.transpose(-1, -2) if b_k_major else b
    b_block = [config.block_n, config.block_k] if b_k_major else [config.block_k, config.block_n]
    return (gluon_launch.describe(a, [config.block_m, config.block_k]), gluon_launch.describe(b_stored, b_block),
            gluon_launch.describe(c, [config.block_m, config.block_n // 2]))


def launch(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, sms: int, config: PingPongConfig | None = None,
           epilogue=None):
    """C = A @ B, of 2-D views or of [batch, rows, cols] ones (checked by `unsupported_reason`; C holds every
    matrix of the product); returns (compiled, grid, arguments). `config` defaults to `config_for` C's dtype.
    `epilogue`: `tilelab.linear`'s (bias or None, activation), fused as each half tile is stored."""
    from tilelab.kernels.matmul_pingpong import matmul_pingpong_kernel
    from tilelab.ops.matmul import epilogue_args

    config = config or config_for(c.dtype)
    (m, k), n = a.shape[-2:], b.shape[-1]
    matrices = c.shape[0] if c.dim() == 3 else 1
    grid = (gluon_launch.persistent_programs(m, n, config, sms, matrices), 1, 1)
    args = (*descriptors(a, b, c, config), m, n, k, matrices, config.group_m, config.num_stages,
            not gluon_launch.stored_row_major(b), matrices > 1, config.mma_regs)
    # As in matmul_registers.launch: num_warps, a keyword here, is recorded last for replays, then the
    # epilogue's arguments (none for a matmul), which come after it in the signature.
    tail = epilogue_args(epilogue)
    keywords = dict(zip(("bias_ptr", "ACTIVATION"), tail, strict=True)) if tail else {}
    compiled = matmul_pingpong_kernel[grid](*args, num_warps=config.num_warps, **keywords)
    return compiled, grid, (*args, config.num_warps, *tail)


def compile_for(target_arch: int = 90, dtype: torch.dtype = torch.float16, b_k_major: bool = False,
                out_dtype: torch.dtype | None = None, batch: int = 1, bias: bool = False,
                activation: str | None = None):
    """Compile the kernel for `sm_<target_arch>` without a GPU, as a launch on aligned 4096-wide operands would
    specialize it (C in `out_dtype`, default `dtype`; `batch` > 1: that many matrices of each operand, described
    in 3-D; bias, activation: `tilelab.linear`'s epilogue, a bias of `dtype`; activation="" binds the epilogue's
    parameters at their defaults, None leaves them out of the signature); returns Triton's CompiledKernel."""
    from tilelab.kernels.matmul_pingpong import matmul_pingpong_kernel

    out_dtype = out_dtype or dtype
    config = config_for(out_dtype)
    size = 4096 if batch == 1 else 512
    a, c = torch.empty(batch, size, size, dtype=dtype), torch.empty(batch, size, size, dtype=out_dtype)
    b = torch.empty(batch, size, size, dtype=dtype)
    names = ("a_desc", "b_desc", "c_desc")
    scalars = {"M": "i32", "N": "i32", "K": "i32", "MATRICES": "i32"}
    constexprs = {"GROUP_M": config.group_m, "STAGES": config.num_stages, "B_K_MAJOR": b_k_major,
                  "BATCHED": batch > 1, "MMA_REGS": config.mma_regs, "num_warps": config.num_warps}
    if bias or activation is not None:
        from triton.runtime.jit import mangle_type

        if bias:
            scalars["bias_ptr"] = mangle_type(torch.empty(1, dtype=dtype))
        else:
            constexprs["bias_ptr"] = None
        constexprs["ACTIVATION"] = activation or ""
    return gluon_launch.compile_without_gpu(
        matmul_pingpong_kernel,
        dict(zip(names, descriptors(a, b.transpose(1, 2) if b_k_major else b, c, config), strict=True)),
        scalars, constexprs, config.num_warps, target_arch)
