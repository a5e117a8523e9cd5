"""The "registers" path of `tilelab.matmul`: tf32 with a row-major B, no copy of B (Hopper, a Gluon kernel).

`tilelab.ops.matmul_plan` asks `unsupported_reason` whether a problem fits and `pays_off` whether to take it by
default; `tilelab.ops.matmul` calls `launch`. The kernel and why it exists: `tilelab.kernels.matmul_tf32_registers`.
"""

import dataclasses

import torch

from tilelab import contracts
from tilelab.ops import gluon_launch
from tilelab.tuning import pow2_at_least, tile_count


@dataclasses.dataclass(frozen=True)
class RegistersConfig:
    """The kernel's tiles. block_m is C^T's wgmma N (at most 256); block_n rows of C^T, 64 per warp group."""

    block_m: int = 256
    block_n: int = 128
    block_k: int = 32
    num_stages: int = 4
    group_m: int = 8
    num_warps: int = 8
    round_b: bool = True  # B rounded to tf32 in registers (`round_to_tf32`); False: wgmma truncates it

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)

    def label(self) -> str:
        return (f"{self.block_m}x{self.block_n}x{self.block_k}, GROUP_M {self.group_m}, {self.num_warps} warps, "
                f"{self.num_stages} stages" + (", B rounded" if self.round_b else ""))

    def tag(self) -> str:
        """A short name (`kernel-inspect --path registers --config 128x64x32-w4-s6`)."""
        return f"{self.block_m}x{self.block_n}x{self.block_k}-w{self.num_warps}-s{self.num_stages}"


# Measured on the H200 against torch.mm with TF32 allowed (results/h200-tf32-gluon-probe-2.log, call YY):
# 1.001x at 4096^3 and 0.984x at 8192^3, where the copy of B + persistent kernel measured 0.904x and 0.941x.
# 3 stages: 0.949x / 0.951x; 256x128x16 with 7 stages: 0.981x / 0.974x; GROUP_M 16: 0.979x / 0.936x; 128-wide
# tiles (call XX): 0.77x. Four stages of 48 KB and the quarter-tile staging buffer use 224 KB of shared memory.
# Rounding B (call PPP, results/h200-tf32-rounding-probe.log, in turns): relative error 7.7e-4 -> 4.7e-4 (torch
# 2.9e-4) for 0.5-1% of the time (4096^3 0.999x -> 0.991x, 8192^3 0.982x -> 0.972x torch).
DEFAULT_CONFIG = RegistersConfig()

# Smaller tiles, for problems that the default's tiles leave SMs idle; smaller tiles buy more programs with more
# reads of A and B per flop, so each is taken only where the larger ones cannot fill the SMs. Measured on the
# H200 against torch.mm with TF32 allowed, in turns (results/h200-tf32-tiles-probe.log, call YYY; -2.log, call
# ZZZ; -skinny.log, call AAAA; -3.log, call CCCC):
#   512x4096x4096  256x64 (128 tiles) 1.06-1.09x torch, 128x128 (128) 0.95x, 256x128 (64) 0.68x;
#   768x4096x4096  256x128 (96 tiles) 1.04x, 256x64 (192) 0.89x, 128x128 (192) 0.78x;
#   1000^3         128x64 (128 tiles) 1.12-1.15x, 256x64 (64) 0.97x, 128x128 (64) 0.87x, the copy of B 0.90x;
#   1024^3         128x64 (128 tiles) 1.05x (1.06x with 8 stages), 128x128 (64) 0.80x, the copy 0.81x;
#   512^3          64x64 (64 tiles) 1.03-1.10x, 128x64 (32) 0.98-1.01x, the pointer kernel 0.85x;
#   128x11008x4096 128x128 (86 tiles, one wave) 0.96x, 128x64 (172 tiles, 1.3 waves) 0.73x;
#   128x4096x4096  64x64 (128 tiles) 1.08x with 12 stages, 1.03x with 8, 128x64 (64) 0.91x, split-K 0.55x
#                  (64x4096x4096: 0.97x / 0.92x);
#   2048^3, 1024x4096x4096, 4096^3: 256x128 (128 tiles or more) ahead of every smaller tile by 12% or more.
# A tile 256 wide (C's rows: wgmma's N) beats a square one of the same area: 256x64 over 128x128 at both shapes
# timed. So 128x128 comes after 256x64: it is chosen where C has too few rows for 256-row tiles.
# Stages fill the shared memory as the default's four do (216, 208, 152 and 196 KB).
CONFIGS: tuple[RegistersConfig, ...] = (
    DEFAULT_CONFIG,
    RegistersConfig(block_m=256, block_n=64, num_stages=5, num_warps=4),
    RegistersConfig(block_m=128, block_n=128, num_stages=6),
    RegistersConfig(block_m=128, block_n=64, num_stages=6, num_warps=4),
    RegistersConfig(block_m=64, block_n=64, num_stages=12, num_warps=4),
)

# `choose_config` takes the largest tiles that make at least this many programs per SM. The measurements above
# put the line between 0.48 (64 tiles of 132: the larger tile lost at 512x4096x4096, 1000^3 and 512^3) and 0.73
# (96 tiles: it won at 768x4096x4096).
FULL_FILL = 0.6

# Below this share of the SMs even the chosen tiles lose to the copy of B (or the pointer kernel): the default
# tile's 64 tiles at 512x4096x4096 (0.48) ran at 0.67x torch against the copy's 0.60x, its 32 tiles at 1000^3
# (0.24) at 0.53-0.65x against 0.82-0.88x (call AAA, results/h200-matmul-float32-tf32-sizes.json); 64x64 tiles,
# 64 of them at 512^3 (0.48), at 1.10x against the pointer kernel's 0.85x (call YYY).
REGISTERS_MIN_FILL = 0.4


# Split-K's tf32 kernel reads a row-major B as it is and transposes each of its tiles for wgmma, a cost that
# grows with B. Where split-K applies (few output tiles, a long K), the registers kernel wins once C has 48 rows
# or more and B is the larger operand (N >= M); split-K keeps the rest. Measured on the H200 in turns, registers
# against split-K, torch = 1 (calls AAAA and EEEE, results/h200-tf32-tiles-probe-skinny.log, -splitk.log):
#   16, 32 x 4096 x 4096   0.86x / 1.13x, 0.92x / 1.14x
#   48, 64 x 4096 x 4096   0.95x / 0.84x, 0.97x / 0.86x
#   128, 256 x 4096 x 4096 1.08x / 0.55x, 1.12x / 0.40x;   128x4096x11008 0.93x / 0.49x
#   4096 x 128, 64, 32 x 4096  1.11x / 1.08x, 0.99x / 1.00x, 0.95x / 0.99x;   2048x128x8192 0.64x / 1.04x
SPLIT_K_BELOW_M = 48


def beats_split_k(m: int, n: int) -> bool:
    """Whether the registers kernel takes a problem that split-K would: C has SPLIT_K_BELOW_M rows or more and at
    least as many columns as rows (B, K x N, is then the larger operand, whose tiles split-K transposes)."""
    return m >= SPLIT_K_BELOW_M and n >= m


def choose_config(m: int, n: int, sms: int) -> RegistersConfig:
    """The largest tiles (`CONFIGS`, in order) whose count fills FULL_FILL of the SMs, leaving out tiles taller
    or wider than C rounded up to a power of two (mostly padding); if none fills them, the smallest tiles
    (the last of CONFIGS, 64x64, fits every problem)."""
    fitting = [c for c in CONFIGS if c.block_m <= pow2_at_least(m, 64) and c.block_n <= pow2_at_least(n, 64)]
    for config in fitting:
        if tile_count(m, n, config) >= FULL_FILL * sms:
            return config
    return fitting[-1]


def unsupported_reason(a3: torch.Tensor, b3: torch.Tensor, precision: str) -> str | None:
    """Why the registers kernel cannot compute this [batch, M, K] @ [batch, K, N] problem; None if it can."""
    from tilelab.ops.matmul_plan import operand_layout

    if a3.dtype != torch.float32:
        return f"it is a float32 kernel; a and b are {a3.dtype}"
    if precision != "tf32":
        return f"it computes in tf32 only; precision={precision!r}"
    unavailable = gluon_launch.unavailable_reason(a3.device)
    if unavailable is not None:
        return unavailable
    if max(a3.shape[0], b3.shape[0]) != 1:
        return f"it computes one GEMM; got a batch of {max(a3.shape[0], b3.shape[0])}"
    for name, x in (("a", a3), ("b", b3)):
        layout = operand_layout(x)
        if not (layout.tma_ok and layout.row_major):
            return (f"{name} must be row-major (unit stride along its last dimension) with a 16-byte aligned "
                    f"data pointer and row stride; got shape {tuple(x.shape[1:])} strides {x.stride()[1:]}")
    return None


def config_tagged(tag: str) -> RegistersConfig:
    """The configuration of `CONFIGS` with this `tag`, or a ValueError naming the tags there are."""
    for config in CONFIGS:
        if config.tag() == tag:
            return config
    raise ValueError(f"no registers configuration is tagged {tag!r}; there are {[c.tag() for c in CONFIGS]}")


def pays_off(m: int, n: int, k: int, sms: int) -> bool:
    """Whether `tilelab.matmul` takes this path by default (given `unsupported_reason` is None): the tiles
    `choose_config` picks fill REGISTERS_MIN_FILL of the SMs (fewer lose to the copy of B and the pointer
    kernel), and the problem is a real matrix product (N and K above 1)."""
    return n > 1 and k > 1 and tile_count(m, n, choose_config(m, n, sms)) >= REGISTERS_MIN_FILL * sms


def require_supported(a3: torch.Tensor, b3: torch.Tensor, precision: str) -> None:
    reason = unsupported_reason(a3, b3, precision)
    if reason is not None:
        raise contracts.ContractError(f"path='registers' cannot take these operands: {reason}. Leave path=None "
                                      "to let tilelab choose.")


def descriptors(a2: torch.Tensor, b2: torch.Tensor, c2: torch.Tensor, config: RegistersConfig):
    """Gluon tensor descriptors of A [M, K], B [K, N] and C [M, N] (row-major 2-D views) with the kernel's
    blocks: A [block_m, block_k], B [block_k, block_n], C [block_m / 4, block_n] (its staging buffer)."""
    return (gluon_launch.describe(a2, [config.block_m, config.block_k]),
            gluon_launch.describe(b2, [config.block_k, config.block_n]),
            gluon_launch.describe(c2, [config.block_m // 4, config.block_n]))


def launch(a2: torch.Tensor, b2: torch.Tensor, c2: torch.Tensor, config: RegistersConfig, sms: int):
    """C = A @ B (2-D, row-major, checked by `unsupported_reason`); returns (compiled, grid, arguments)."""
    from tilelab.kernels.matmul_tf32_registers import matmul_tf32_registers_kernel

    (m, k), n = a2.shape, b2.shape[1]
    grid = (gluon_launch.persistent_programs(m, n, config, sms), 1, 1)
    args = (*descriptors(a2, b2, c2, config), m, n, k, config.group_m, config.num_stages, config.round_b)
    # num_warps is both the kernel's constexpr and the launch option that sets the warp count: a keyword
    # sets both. The recorded arguments carry it last, in the kernel's signature order, for replays.
    compiled = matmul_tf32_registers_kernel[grid](*args, num_warps=config.num_warps)
    return compiled, grid, (*args, config.num_warps)


def compile_for(target_arch: int = 90, config: RegistersConfig = DEFAULT_CONFIG,
                out_dtype: torch.dtype = torch.float32):
    """Compile the kernel for `sm_<target_arch>` without a GPU, as a launch on aligned 4096-wide operands would
    specialize it; returns Triton's CompiledKernel."""
    from tilelab.kernels.matmul_tf32_registers import matmul_tf32_registers_kernel

    a, b = torch.empty(4096, 4096), torch.empty(4096, 4096)
    c = torch.empty(4096, 4096, dtype=out_dtype)
    names = ("a_desc", "b_desc", "c_desc")
    return gluon_launch.compile_without_gpu(
        matmul_tf32_registers_kernel, dict(zip(names, descriptors(a, b, c, config), strict=True)),
        {"M": "i32", "N": "i32", "K": "i32"},
        {"GROUP_M": config.group_m, "STAGES": config.num_stages, "ROUND_B": config.round_b,
         "num_warps": config.num_warps}, config.num_warps, target_arch)
