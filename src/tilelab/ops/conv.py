"""`tilelab.conv2d_bn_silu`: a convolution, an inference-mode batch norm and SiLU in one Triton kernel.

Contract check -> plan (kernel, tile config tuned per problem kind) -> launch one of two kernels in
`tilelab.kernels.conv`, each of which folds the batch norm into a scale and a shift per channel and applies them and
SiLU to its float32 accumulator before the single store:

- `conv2d_bn_silu_kernel` computes the convolution as an implicit GEMM per group (tensor cores), groups of 2 to
  `DOT_MIN_K` - 1 input channels several to a tile (`groups_per_tile`: a block-diagonal weight block);
- `conv2d_bn_silu_direct_kernel` multiplies and adds in float32 FMAs, for depthwise convolutions (one input
  channel per group), and small groups that cannot be bundled (`uses_direct_kernel`).

Unfused, torch runs three kernels (and more for the bias and the statistics) and writes and reads the
convolution's output twice more.

The first call with a given signature (shapes, strides, dtypes, alignment, options) records its launch; later
calls with the same signature replay it (`_ConvReplay`), skipping the checks, the plan and Triton's binder, as
`tilelab.matmul` does: the host work of an eager call is then a few microseconds instead of a few hundred.

Only inference-mode batch norm fuses: its mean and variance are the running statistics, known before the
convolution runs. In training the statistics are those of this very output, which a single pass cannot know
before it has written the output.
"""

from __future__ import annotations

import dataclasses
import math

import torch
import triton

from tilelab import contracts, env, tuning
from tilelab.ops import bound_launch, matmul_hopper
from tilelab.ops import matmul as matmul_op
from tilelab.tuning import Config

INPUT_DTYPES = (torch.float16, torch.bfloat16, torch.float32)
PRECISIONS = ("tf32", "tf32x3", "ieee")
INT32_LIMIT = 2**31

# The seed chapter's fused convolution: 32 output pixels x 32 channels x 32 K terms, GROUP_M 8.
SEED = Config(block_m=32, block_n=32, block_k=32, group_m=8, num_warps=4, num_stages=2)
# On the direct kernel a config's block_m is its tile's output pixels and block_n its output channels (seed:
# 32 x 32); block_k, group_m and num_stages mean nothing to it.
NAMED_CONFIGS: dict[str, Config] = {"seed": SEED, "interpreter": tuning.INTERPRETER}

# The two kernels (`describe_plan`'s "path").
IMPLICIT_GEMM = "implicit_gemm"
DIRECT = "direct"
# tl.dot's smallest K: a group with fewer input channels per filter tap would be multiplied mostly as padding.
DOT_MIN_K = 16
# A bundle of small groups spans at most this many input channels per filter tap (`groups_per_tile`). On the
# H200 32 was fastest for 2, 4 and 8 channels per group (results/h200-conv-bundle-probe.log: 4 per group 94.6 us
# against 171.3 at 64 and 134.9 at 16); more groups per tile multiply and load more of the block-diagonal zeros.
PACKED_K = 32


@dataclasses.dataclass(frozen=True)
class ConvConfig(Config):
    """A `tuning.Config` plus the implicit GEMM's split-K: each tile's K steps cut into `split_k` slices, one
    program each, summed by the last to finish (`conv2d_bn_silu_kernel`); `maxnreg`, ptxas's cap on registers
    per thread (0: none), which lets more programs share an SM, spilling what no longer fits; and the implicit
    GEMM's `flat_k`: K steps that run over filter taps and input channels as one range (`flat_k_blocks`), for
    few or ragged input channels; and its `windows_by_multiplication`: each pixel's image, row and column found by
    multiplications instead of divisions by OW and OH (`output_windows`), which flat K steps always do. A plain
    Config means split_k 1, no cap, one tap per K step, pixels divided."""

    split_k: int = 1
    maxnreg: int = 0
    flat_k: bool = False
    windows_by_multiplication: bool = False

    def label(self) -> str:
        return (super().label() + (f"-sk{self.split_k}" if self.split_k > 1 else "")
                + (f"-r{self.maxnreg}" if self.maxnreg else "") + ("-flat" if self.flat_k else "")
                + ("-mul" if self.windows_by_multiplication else ""))


def split_k_of(config: Config) -> int:
    return getattr(config, "split_k", 1)


def flat_k_of(config: Config) -> bool:
    return getattr(config, "flat_k", False)


def windows_by_multiplication_of(config: Config) -> bool:
    """Whether the implicit GEMM divides pixel indices by OW and OH by multiplication: flat K steps always, tap
    steps where the config says so."""
    return flat_k_of(config) or getattr(config, "windows_by_multiplication", False)


def register_cap(config: Config) -> dict:
    """The launch option for a config's `maxnreg` (none without a cap: Triton's own choice)."""
    cap = getattr(config, "maxnreg", 0)
    return {"maxnreg": cap} if cap else {}


# Tried on the GPU (pruned by the problem's size). The loads gather one input pixel per row, so they are
# pointer loads (cp.async), not TMA: deeper pipelines than the matmul's TMA tiles.
GPU_CANDIDATES: tuple[Config, ...] = (
    Config(128, 128, 64, 8, num_warps=8, num_stages=3),
    Config(128, 128, 32, 8, num_warps=4, num_stages=4),
    Config(128, 64, 64, 8, num_warps=4, num_stages=4),
    Config(64, 128, 64, 8, num_warps=4, num_stages=4),
    Config(64, 64, 64, 8, num_warps=4, num_stages=4),
    Config(128, 256, 64, 8, num_warps=8, num_stages=3),
    Config(64, 32, 64, 8, num_warps=4, num_stages=4),
    Config(128, 32, 64, 8, num_warps=4, num_stages=4),
    Config(64, 16, 64, 8, num_warps=4, num_stages=4),
)
# Split-K, for layers of few output pixels and long K (3x3 over 256 or 512 channels at 14x14 or 7x7): too few
# tiles to fill the SMs, each a long loop. The H200 emulation (S times the batch over C_in / S channels,
# results/h200-conv-split-probe.log) measured these tiles fastest split, S = 2 or 4. Tuned with the last slice's
# sum in halves, split tiles won at 7x7x512 (fp32 56.2 us in 4 slices against 76.3 unsplit, fp16 38.2 in 2 against
# 41.4) and fp32 14x14x256 (53.2 against 62.7; results/h200-conv2d_bn_silu-*-split-halves-tuned.json). Tried
# where the slices keep at least SPLIT_K_MIN_STEPS K steps and the programs make at most SPLIT_K_MAX_WAVES waves.
SPLIT_K_TILES: tuple[Config, ...] = (
    Config(64, 128, 64, 8, num_warps=4, num_stages=3),
    Config(128, 256, 64, 8, num_warps=8, num_stages=3),
    Config(64, 256, 64, 8, num_warps=8, num_stages=3),
    Config(128, 128, 64, 8, num_warps=8, num_stages=4),
)
SPLIT_K_FACTORS = (2, 4)
SPLIT_K_MIN_STEPS = 8
SPLIT_K_MAX_WAVES = 4
SPLIT_K_LIMIT = tuning.SPLIT_K_LIMIT  # an explicit ConvConfig's most slices
# Flat K steps (`ConvConfig.flat_k`) are timed for layers whose input channels fill under FLAT_K_BELOW of a K step
# of FLAT_K_STEP 16-bit terms per filter tap (`flat_k_fits`).
FLAT_K_STEP = 64
FLAT_K_BELOW = 0.8
# ptxas's register cap, as a ConvConfig may set it: a thread has at most 255 registers, allocated 8 at a time.
MIN_REGISTER_CAP, MAX_REGISTER_CAP = 32, 248


def direct_tile(pixels: int, channels: int, num_warps: int, maxnreg: int = 0) -> ConvConfig:
    """A direct-kernel tile as a config: block_m output pixels x block_n output channels, and ptxas's register cap
    (0: none). block_k (16, the smallest a Config may have), group_m and num_stages are not used: the kernel has no
    pipelined loop."""
    return ConvConfig(pixels, channels, 16, group_m=1, num_warps=num_warps, num_stages=1, maxnreg=maxnreg)


# The direct kernel's tiles tried on the GPU (pruned by the problem's size), 16 or 32 float32 sums per thread.
# 16x64 on 2 warps was the fastest on a depthwise 3x3 layer in the H200 probe (results/h200-grouped-conv-probe.log:
# 66.1 us against 70.8 for the tuned 256x16); since the loop over filter rows, tiles of 16 or 32 channels won
# where those divide the channels (144, 72; call GGGGGGGG). Square and wide tiles on 4 and 8 warps (16x256,
# 32x128, 128x64, 64x128, 64x64) never won a layer of the shipped table, and are left out.
# The kernel is bound by latency (Nsight Compute, call HHHHHHHH: 256x16 on 4 warps takes 151 registers, 3 programs
# per SM, and no warp is ready in 35% of cycles), so each tile also comes with ptxas's register cap (`maxnreg`),
# which fits one more program per SM: 128 for the 32-sum tiles (about 149 registers uncapped), 80 and 96 for
# 16x64 on 2 warps (72 at 3x3, 110 at 5x5). In the probe (call MMMMMMMM,
# results/h200-conv-direct-registers-probe-replays.log) the best capped tile gained 2-10% on six of seven
# depthwise layers: 144 channels 49.7 -> 46.6 us, 96 channels at stride 2 51.6 -> 46.6, 5x5 240 channels
# 44.3 -> 43.4; a cap of 96 on the 32-sum tiles spilled and lost everywhere.
DIRECT_CANDIDATES: tuple[ConvConfig, ...] = (
    direct_tile(16, 64, 2),
    direct_tile(16, 64, 2, maxnreg=96),
    direct_tile(16, 64, 2, maxnreg=80),
    direct_tile(64, 32, 2),
    direct_tile(64, 32, 2, maxnreg=128),
    direct_tile(128, 16, 2),
    direct_tile(128, 16, 2, maxnreg=128),
    direct_tile(128, 32, 4),
    direct_tile(128, 32, 4, maxnreg=128),
    direct_tile(256, 16, 4),
    direct_tile(256, 16, 4, maxnreg=128),
    direct_tile(64, 64, 4, maxnreg=128),
)
# The direct kernel keeps block_m x block_n float32 sums in registers, spread over the program's threads: a
# config is refused beyond this many per thread (the candidates have 16 or 32), before it would spill.
DIRECT_MAX_SUMS_PER_THREAD = 64


@dataclasses.dataclass(frozen=True)
class ConvGeometry:
    """Sizes of one call: input [batch, c_in, h, w], filter [c_out, c_in / groups, kh, kw], output
    [batch, c_out, oh, ow]."""

    batch: int
    c_in: int
    h: int
    w: int
    c_out: int
    kh: int
    kw: int
    stride: tuple[int, int]
    padding: tuple[int, int]
    dilation: tuple[int, int]
    groups: int = 1

    @property
    def c_in_per_group(self) -> int:
        return self.c_in // self.groups

    @property
    def c_out_per_group(self) -> int:
        return self.c_out // self.groups

    @property
    def oh(self) -> int:
        return (self.h + 2 * self.padding[0] - self.dilation[0] * (self.kh - 1) - 1) // self.stride[0] + 1

    @property
    def ow(self) -> int:
        return (self.w + 2 * self.padding[1] - self.dilation[1] * (self.kw - 1) - 1) // self.stride[1] + 1

    @property
    def bundle(self) -> int:
        """Groups per implicit-GEMM tile (`groups_per_tile`: one, unless the groups are small)."""
        return groups_per_tile(self)

    @property
    def bundle_c_in(self) -> int:
        return self.bundle * self.c_in_per_group

    @property
    def bundle_c_out(self) -> int:
        return self.bundle * self.c_out_per_group

    def gemm(self) -> tuple[int, int, int]:
        """One bundle's implicit GEMM's M, N, K: output pixels, the bundle's output channels, filter taps times its
        input channels (groups=1: the whole convolution)."""
        return self.batch * self.oh * self.ow, self.bundle_c_out, self.kh * self.kw * self.bundle_c_in


def groups_per_tile(g: ConvGeometry) -> int:
    """How many groups share one implicit-GEMM tile (a bundle, its weight block block-diagonal): for groups of 2
    to DOT_MIN_K - 1 input channels, the largest power of two that divides the groups and keeps the bundle's
    input channels within PACKED_K (32); else 1. On the H200 one group of 4 or 8 channels per program ran 3-10x
    slower than torch (results/h200-grouped-conv-probe.log): each program's few short K steps could not hide
    their loads, and the direct kernel's gathers were slower still."""
    if g.groups == 1 or not 2 <= g.c_in_per_group < DOT_MIN_K:
        return 1
    bundle = 1
    while g.groups % (2 * bundle) == 0 and 2 * bundle * g.c_in_per_group <= PACKED_K:
        bundle *= 2
    return bundle


def uses_direct_kernel(g: ConvGeometry) -> bool:
    """The path rule: a grouped convolution with fewer than DOT_MIN_K input channels per group that cannot be
    bundled (`groups_per_tile` is 1: depthwise, or an odd group count) takes the direct kernel, whose FMAs
    multiply no padding; the implicit GEMM would pad each group's K up to tl.dot's 16. An ungrouped convolution
    always takes the implicit GEMM, however few its input channels (a 3-channel stem too: its measured results
    are that kernel's)."""
    return g.groups > 1 and g.c_in_per_group < DOT_MIN_K and g.bundle == 1


def kernel_path(g: ConvGeometry) -> str:
    return DIRECT if uses_direct_kernel(g) else IMPLICIT_GEMM


def conv2d_bn_silu(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None, *,
                   running_mean: torch.Tensor, running_var: torch.Tensor,
                   bn_weight: torch.Tensor | None = None, bn_bias: torch.Tensor | None = None,
                   eps: float = 1e-5, stride=1, padding=0, dilation=1, groups: int = 1,
                   precision: str | None = None, config: str | Config | None = None,
                   silu: bool = True) -> torch.Tensor:
    """SiLU(batch_norm(conv2d(x, weight, bias, groups=groups))) with the batch norm in inference mode, in one kernel.

    The arguments are those of `torch.nn.functional.conv2d` and `batch_norm(training=False)`:
    `running_mean`, `running_var`, `bn_weight` (gamma) and `bn_bias` (beta) are per output channel. x is
    [batch, C_in, H, W] in NCHW or channels-last storage (or any strided view); the output has x's memory
    format, as torch's convolution gives. `stride`, `padding` and `dilation` are an int or a pair;
    `padding` may also be "valid" or "same" (stride 1, and odd filter extents: torch's uneven padding for an
    even one is refused). `groups` splits the channels as in torch: weight is
    [C_out, C_in / groups, KH, KW], and C_in and C_out must be multiples of groups (groups = C_in: depthwise).

    Depthwise convolutions (and groups under 16 input channels that cannot share a tile) run on a direct kernel
    of float32 FMAs, the others on the implicit GEMM, small groups (ResNeXt's 4 or 8 channels) several to a tile
    (`uses_direct_kernel`, `groups_per_tile`; `describe_plan` says which).
    float16/bfloat16 accumulate in float32 and return the input dtype; float32 takes `precision` ("tf32" by default:
    tensor cores; "ieee" gives them up, as for `tilelab.matmul`) on the implicit GEMM, and is exact float32 on the
    direct kernel whatever the precision. `config` forces a named ("seed": the seed chapter's 32/32/32;
    "interpreter": the one tile the interpreter runs) or explicit `Config` instead of the tuned one; on the direct
    kernel its block_m is the tile's output pixels and block_n its output channels, at most 64 float32 sums per
    thread (block_m * block_n <= 64 * 32 * num_warps); a `ConvConfig` adds split-K (`split_k` slices, the implicit
    GEMM only) and ptxas's register cap (`maxnreg`, 0 for none). `silu=False` stops after the batch norm. An input
    that requires grad goes through `torch.ops.tilelab.conv2d_bn_silu`, which has a backward.
    """
    traced = torch.compiler.is_compiling()  # then only the op has a fake implementation (no data pointers)
    per_channel = (bias, running_mean, running_var, bn_weight, bn_bias)
    key = None if traced else _replay_key(x, weight, per_channel, eps, stride, padding, dilation, groups, precision,
                                          config, silu)
    replay = _REPLAYS.get(key) if key is not None else None
    if replay is not None and bound_launch.no_launch_hooks():
        return replay(x, weight, per_channel)

    geometry = _check(x, weight, bias, running_mean, running_var, bn_weight, bn_bias, eps, stride, padding,
                      dilation, groups, precision, config, silu)
    if traced or torch.is_grad_enabled() and any(t is not None and t.requires_grad
                                                 for t in (x, weight, bias, bn_weight, bn_bias)):
        return _differentiable(x, weight, bias, running_mean, running_var, bn_weight, bn_bias, eps, geometry,
                               precision, config, silu)
    y = _allocate_output(x, geometry)
    if y.numel() == 0:
        return y
    per_channel = tuple(None if t is None else t.contiguous() for t in per_channel)
    input_precision = _input_precision(x, precision)

    def launch(c: Config):
        return _launch(c, x, weight, per_channel, y, float(eps), geometry, input_precision, silu)

    chosen = _choose_config(x, weight, geometry, input_precision, config, silu, launch)
    compiled, grid, args = launch(chosen)
    if key is not None:
        direct = uses_direct_kernel(geometry)
        pointers = DIRECT_POINTERS if direct else GEMM_POINTERS
        _REPLAYS[key] = _ConvReplay(bound_launch.bind_launch_on_stream(compiled, grid, args[pointers:], x.device),
                                    _channels_last(x), (geometry.batch, geometry.c_out, geometry.oh, geometry.ow),
                                    direct, None if direct else _split_workspace(geometry, chosen))
    return y


# -- contracts ---------------------------------------------------------------------------------------------


def _pair(value, name: str, minimum: int) -> tuple[int, int]:
    """An int or a pair of them (numpy's too, as torch takes), as two Python ints."""
    try:
        if isinstance(value, (tuple, list)):
            if len(value) != 2:
                raise contracts.InputTypeError
            pair = tuple(contracts.as_int(v, name) for v in value)
        else:
            pair = (contracts.as_int(value, name),) * 2
    except contracts.InputTypeError:
        raise contracts.InputTypeError(f"{name} must be an int or a pair of ints; got {value!r}") from None
    if min(pair) < minimum:
        raise contracts.ContractError(f"{name} must be >= {minimum}; got {value!r}")
    return pair


def _padding(padding, kernel: tuple[int, int], stride: tuple[int, int], dilation: tuple[int, int]):
    if padding == "valid":
        return (0, 0)
    if padding == "same":
        if stride != (1, 1):
            raise contracts.ContractError(f"padding='same' needs stride 1, as in torch; got stride={stride}")
        extents = [d * (k - 1) for k, d in zip(kernel, dilation, strict=True)]
        if any(e % 2 for e in extents):
            # torch pads such a filter unevenly (one more on the far side); this kernel pads both sides alike.
            raise contracts.ContractError(
                f"padding='same' with an even filter extent {tuple(extents)} pads one side more; pass the "
                "padding as numbers, or pad x first")
        return (extents[0] // 2, extents[1] // 2)
    if isinstance(padding, str):
        raise contracts.ContractError(f"padding must be an int, a pair, 'valid' or 'same'; got {padding!r}")
    return _pair(padding, "padding", 0)


def _per_channel(t, name: str, c_out: int, x: torch.Tensor, required: bool = False) -> None:
    if t is None:
        if required:
            raise contracts.InputTypeError(f"{name} must be a torch.Tensor of {c_out} values, got None")
        return
    contracts.require_vector(t, name, c_out, "output channel", x)


def _check_groups(groups, c_in: int, c_out: int, weight_c_in: int) -> int:
    groups = contracts.as_int(groups, "groups", low=1)
    if c_in % groups:
        raise contracts.ShapeError(f"x's C_in = {c_in} is not divisible by groups = {groups}")
    if c_out % groups:
        raise contracts.ShapeError(f"weight's C_out = {c_out} is not divisible by groups = {groups}")
    if weight_c_in != c_in // groups:
        raise contracts.ShapeError(
            f"weight has {weight_c_in} input channels per group, expected C_in / groups = {c_in} / {groups} = "
            f"{c_in // groups}: weight must be [C_out, C_in / groups, KH, KW]")
    return groups


def _check(x, weight, bias, running_mean, running_var, bn_weight, bn_bias, eps, stride, padding, dilation,
           groups, precision, config, silu=True) -> ConvGeometry:
    contracts.require_tensor(x, "x")
    contracts.require_tensor(weight, "weight")
    if x.dim() != 4:
        raise contracts.ShapeError(f"x must be 4-D [batch, C_in, H, W]; got shape {tuple(x.shape)}")
    if weight.dim() != 4:
        raise contracts.ShapeError(f"weight must be 4-D [C_out, C_in, KH, KW]; got shape {tuple(weight.shape)}")
    contracts.require_dtype(x, "x", INPUT_DTYPES)
    contracts.require_dtype(weight, "weight", INPUT_DTYPES)
    contracts.require_same_dtype({"x": x, "weight": weight})
    contracts.require_runnable_device({"x": x, "weight": weight})
    batch, c_in, h, w = x.shape
    c_out, w_c_in, kh, kw = weight.shape
    groups = _check_groups(groups, c_in, c_out, w_c_in)
    if kh == 0 or kw == 0:
        raise contracts.ShapeError(f"weight's filter must be at least 1x1; got {kh}x{kw}")
    _per_channel(bias, "bias", c_out, x)
    _per_channel(running_mean, "running_mean", c_out, x, required=True)
    _per_channel(running_var, "running_var", c_out, x, required=True)
    _per_channel(bn_weight, "bn_weight", c_out, x)
    _per_channel(bn_bias, "bn_bias", c_out, x)
    contracts.as_finite_nonnegative(eps, "eps")
    contracts.require_bool(silu, "silu")
    stride = _pair(stride, "stride", 1)
    dilation = _pair(dilation, "dilation", 1)
    padding = _padding(padding, (kh, kw), stride, dilation)
    if precision is not None:
        contracts.require_choice(precision, "precision", PRECISIONS)
        if x.dtype != torch.float32:
            raise contracts.ContractError(f"precision={precision!r} applies to float32 inputs only; x is {x.dtype}")
    if config is not None:
        if isinstance(config, str):
            contracts.require_choice(config, "config", NAMED_CONFIGS)
        elif not isinstance(config, Config):
            raise contracts.InputTypeError(
                f"config must be None, a name or a tilelab.tuning.Config; got {type(config).__name__}")
        else:
            _check_tile(config)
    geometry = ConvGeometry(batch, c_in, h, w, c_out, kh, kw, stride, padding, dilation, groups)
    if geometry.oh < 1 or geometry.ow < 1:
        raise contracts.ShapeError(
            f"the filter ({kh}x{kw}, dilation {dilation}) does not fit in x's {h}x{w} image with padding "
            f"{padding}: the output would be {geometry.oh}x{geometry.ow}")
    if not uses_direct_kernel(geometry):  # the implicit GEMM's tl.dot; the direct kernel has none
        contracts.require_dot_dtype_runs_here(x, "x")
    bundles = geometry.groups // geometry.bundle
    if not uses_direct_kernel(geometry) and bundles > matmul_op.MAX_GRID_Y:
        raise contracts.ShapeError(
            f"groups={groups}: the implicit GEMM runs {bundles} bundles of groups along the grid's second axis, "
            f"at most {matmul_op.MAX_GRID_Y} (CUDA's limit)")
    if isinstance(config, Config) and uses_direct_kernel(geometry):
        _check_direct_tile(config)
    elif isinstance(config, Config) and split_k_of(config) > 1:
        elements = _workspace_elements(geometry, config)
        if elements >= INT32_LIMIT:
            raise contracts.ShapeError(
                f"config.split_k={split_k_of(config)}: the float32 workspace of partial tiles would hold {elements} "
                "elements, 2**31 or more (its offsets are 32-bit); use fewer slices, or none")
    return geometry


def _check_tile(config: Config) -> None:
    for field in ("block_m", "block_n", "block_k"):
        value = getattr(config, field)
        if type(value) is not int or not tuning.is_power_of_two(value) or value < 16:
            raise contracts.ContractError(f"config.{field} must be a power of two >= 16; got {value!r}")
    contracts.require_launch_counts(config)
    if hasattr(config, "split_k"):
        contracts.require_config_int(config, "split_k", high=SPLIT_K_LIMIT)
    cap = getattr(config, "maxnreg", 0)
    if isinstance(cap, bool) or not isinstance(cap, int) or cap and not (
            MIN_REGISTER_CAP <= cap <= MAX_REGISTER_CAP and cap % 8 == 0):
        raise contracts.ContractError(f"config.maxnreg must be 0 (no cap) or a multiple of 8 from {MIN_REGISTER_CAP} "
                                      f"to {MAX_REGISTER_CAP} registers per thread; got {cap!r}")
    for field in ("flat_k", "windows_by_multiplication"):
        contracts.require_bool(getattr(config, field, False), f"config.{field}")


def _check_direct_tile(config: Config) -> None:
    """The direct kernel's sums live in registers: block_m x block_n of them over 32 * num_warps threads. It has
    no K loop to split."""
    if split_k_of(config) > 1:
        raise contracts.ContractError(
            f"config.split_k={split_k_of(config)}: the direct kernel (grouped, under {DOT_MIN_K} input channels per "
            "group, unbundled) has no K loop to split; use split_k=1")
    if flat_k_of(config):
        raise contracts.ContractError(
            f"config.flat_k=True: the direct kernel (grouped, under {DOT_MIN_K} input channels per group, unbundled) "
            "has no K steps to lay out; use flat_k=False")
    per_thread = config.block_m * config.block_n // (32 * config.num_warps)
    if per_thread > DIRECT_MAX_SUMS_PER_THREAD:
        raise contracts.ContractError(
            f"config {config.label()}: the direct kernel (grouped, under {DOT_MIN_K} input channels per group) "
            f"keeps block_m x block_n = {config.block_m * config.block_n} float32 sums in registers, {per_thread} "
            f"per thread with {config.num_warps} warps; at most {DIRECT_MAX_SUMS_PER_THREAD}")


# -- plan and launch ---------------------------------------------------------------------------------------


def _channels_last(x: torch.Tensor) -> bool:
    """Whether x is stored channels-last (and not also plain contiguous, as a 1x1 image or one channel is)."""
    return x.is_contiguous(memory_format=torch.channels_last) and not x.is_contiguous()


def _allocate_output(x: torch.Tensor, g: ConvGeometry) -> torch.Tensor:
    memory_format = torch.channels_last if _channels_last(x) else torch.contiguous_format
    return torch.empty((g.batch, g.c_out, g.oh, g.ow), dtype=x.dtype, device=x.device, memory_format=memory_format)


def _layout(t: torch.Tensor) -> str:
    """Which dimension is contiguous decides how the loads coalesce: the tuning key names it."""
    if t.is_contiguous():
        return "nchw"
    if t.is_contiguous(memory_format=torch.channels_last):
        return "nhwc"
    return "strided"


def tuning_key(x, weight, g: ConvGeometry, input_precision: str, silu: bool) -> str:
    """The problem kind a tuned tile is remembered for. An ungrouped convolution's key is what it was before
    groups existed (the shipped winners are keyed so); a grouped one adds its groups, and a direct-kernel one
    its channels per group, so neither ever takes a dense problem's tile."""
    m, n, k = g.gemm()
    fields = [
        env.gpu_name(x.device.index or 0) if x.device.type == "cuda" else "cpu",
        "conv2d_bn_silu" if silu else "conv2d_bn", str(x.dtype).removeprefix("torch."), input_precision,
        f"x-{_layout(x)}", f"w-{_layout(weight)}", f"{g.kh}x{g.kw}", f"s{g.stride[0]}x{g.stride[1]}",
    ]
    if uses_direct_kernel(g):  # its tiles span groups: all output channels count
        fields += [tuning.shape_bucket(m, g.c_out, k, fine=True), f"direct-{g.c_in_per_group}x{g.c_out_per_group}"]
    else:
        fields.append(tuning.shape_bucket(m, n, k, fine=True))
        if g.groups > 1:
            fields.append(f"groups{g.groups}" + (f"x{g.bundle}" if g.bundle > 1 else ""))
    return "|".join(fields)


def candidates(g: ConvGeometry, element_size: int, sms: int = 132) -> list[Config]:
    """The GPU candidates that fit this problem: not wider than twice the (group's) output channels, not taller
    than twice the pixels; on the implicit GEMM, K steps no longer than the group's input channels (one K step
    never crosses a filter tap), for few or ragged channels (`flat_k_fits`) each tile's flat twin, whose steps
    may cross taps, and split-K (`SPLIT_K_TILES`) where the slices stay long and the programs few (`sms`: the
    GPU's SMs). Every tap tile, split or not, comes twice: also with its pixels divided by multiplication (`-mul`:
    on the H200 4-23% faster on five layers and 10-25% slower on two with the same tiles, so the tuner decides)."""
    m, n, _ = g.gemm()
    if uses_direct_kernel(g):
        return tuning.prune(DIRECT_CANDIDATES, m, g.c_out, element_size)
    taps = _fitted(GPU_CANDIDATES, g, element_size)
    found = [*taps, *(ConvConfig(**c.as_dict(), windows_by_multiplication=True) for c in taps)]
    if flat_k_fits(g):
        found += [dataclasses.replace(ConvConfig(**c.as_dict()), flat_k=True)
                  for c in _fitted(GPU_CANDIDATES, g, element_size, longest_k=g.gemm()[2])]
    for tile in _fitted(SPLIT_K_TILES, g, element_size):
        steps = g.kh * g.kw * tuning.ceil_div(g.bundle_c_in, tile.block_k)
        programs = tuning.tile_count(m, n, tile) * (g.groups // g.bundle)
        for split in SPLIT_K_FACTORS:
            config = ConvConfig(**tile.as_dict(), split_k=split)
            if (steps >= split * SPLIT_K_MIN_STEPS and programs * split <= SPLIT_K_MAX_WAVES * sms
                    and _workspace_elements(g, config) < INT32_LIMIT):
                found += [config, dataclasses.replace(config, windows_by_multiplication=True)]
    return list(dict.fromkeys(found))


def flat_k_fits(g: ConvGeometry) -> bool:
    """Whether flat K steps (`ConvConfig.flat_k`) are worth timing: an implicit GEMM of one group per tile, a
    filter of several taps, and input channels that fill under FLAT_K_BELOW of a K step per tap (3, 24, 33, 40,
    96 channels; 64 or 128 fill whole steps)."""
    if uses_direct_kernel(g) or g.bundle > 1 or g.kh * g.kw == 1 or g.c_in_per_group == 0:
        return False  # (no input channels: no K steps to lay out)
    step = min(FLAT_K_STEP, tuning.pow2_at_least(g.c_in_per_group, 16))
    return g.c_in_per_group / (tuning.ceil_div(g.c_in_per_group, step) * step) < FLAT_K_BELOW


def _fitted(tiles, g: ConvGeometry, element_size: int, longest_k: int | None = None) -> list[Config]:
    """`tiles` pruned for this problem, their K steps as long in bytes as 16-bit ones and no longer than
    `longest_k` (default: a bundle's input channels, as one K step never crosses a filter tap), rounded up to a
    power of two."""
    m, n, _ = g.gemm()
    if element_size >= 4:
        tiles = [dataclasses.replace(c, block_k=c.block_k // 2) for c in tiles]  # the same bytes per K step
    longest_k = tuning.pow2_at_least(g.bundle_c_in if longest_k is None else longest_k, 16)
    tiles = [dataclasses.replace(c, block_k=min(c.block_k, longest_k)) for c in tiles]
    return list(dict.fromkeys(tuning.prune(tiles, m, n, element_size)))


def _workspace_shape(g: ConvGeometry, config: Config) -> tuple[int, int, int, int]:
    """Split-K's float32 partial tiles, whole: [bundles, tiles, split_k, block_m * block_n]."""
    m, n, _ = g.gemm()
    return g.groups // g.bundle, tuning.tile_count(m, n, config), split_k_of(config), config.block_m * config.block_n


def _workspace_elements(g: ConvGeometry, config: Config) -> int:
    """The split-K workspace's size (the kernel's offsets into it are 32-bit)."""
    return math.prod(_workspace_shape(g, config))


def _input_precision(x: torch.Tensor, precision: str | None) -> str:
    """The dot's input precision: `precision` (tf32 by default) for float32, which 16-bit inputs ignore."""
    return (precision or "tf32") if x.dtype == torch.float32 else "tf32"


def _choose_config(x, weight, g, input_precision, config, silu, launch=None) -> Config:
    """The named or explicit config, else the tuned one. `launch(config)` times a candidate (an unknown problem is
    tuned then); without it, an unknown problem gets the first candidate, untimed (`describe_plan`)."""
    if isinstance(config, Config):
        return config
    if isinstance(config, str):
        return NAMED_CONFIGS[config]
    if env.interpreting():
        return tuning.INTERPRETER
    key = tuning_key(x, weight, g, input_precision, silu)
    found = tuning.known(key, ConvConfig)
    if found is not None:
        return found
    sms = matmul_hopper.sm_count(x.device.index or 0) if x.is_cuda else 132
    # Timing writes y, which the real launch overwrites afterwards.
    return tuning.choose(key, candidates(g, x.element_size(), sms), launch, config_type=ConvConfig,
                         measure=launch is not None)


def _needs_64bit_offsets(x, weight, y, config: Config) -> bool:
    """Masked lanes still form their addresses: a tile's overshoot past the last pixel or channel counts too
    (either kernel: its blocks are the config's)."""
    def reach(t, overshoot):
        return sum((size - 1 + overshoot) * abs(stride) for size, stride in zip(t.shape, t.stride(), strict=True))

    over = max(config.block_m, config.block_n, config.block_k)
    return max(reach(x, over), reach(weight, over), reach(y, over)) >= INT32_LIMIT


PER_CHANNEL = ("bias", "mean", "var", "gamma", "beta")  # the kernel's per-channel pointers, after x and w
# The kernels' pointer arguments come first: x, w, the per-channel ones, y; then, the implicit GEMM's only,
# split-K's workspace and tile counters.
DIRECT_POINTERS = 8
GEMM_POINTERS = 10


def _launch(config: Config, x, weight, per_channel, y, eps: float, g: ConvGeometry, input_precision: str,
            silu: bool):
    """Launch the path's kernel; returns (compiled kernel, grid, arguments), which `bind_launch` records for
    replays. Both kernels take the same pointers, strides, convolution and epilogue arguments."""
    from tilelab.kernels.conv import conv2d_bn_silu_direct_kernel, conv2d_bn_silu_kernel

    bias, _, _, gamma, beta = per_channel
    m, n, _ = g.gemm()
    pointers = (x, weight, *_pointers_or_mean(per_channel), y)
    strides = (*x.stride(), *weight.stride(), *y.stride(), *g.stride, *g.padding, *g.dilation, eps)
    epilogue = (_needs_64bit_offsets(x, weight, y, config), silu, bias is not None, gamma is not None,
                beta is not None)
    if uses_direct_kernel(g):
        # Pixel tiles along the grid's first axis, channel tiles (spanning groups) along its second.
        grid = (triton.cdiv(m, config.block_m), triton.cdiv(g.c_out, config.block_n), 1)
        if grid[1] > matmul_op.MAX_GRID_Y:
            raise contracts.ShapeError(
                f"C_out={g.c_out}: the direct kernel's {grid[1]} tiles of {config.block_n} output channels exceed the "
                f"grid's second axis ({matmul_op.MAX_GRID_Y}, CUDA's limit)")
        args = (*pointers, g.batch, g.h, g.w, g.c_out, g.oh, g.ow, *strides, g.c_in_per_group, g.c_out_per_group,
                *window_magic(g), g.kh, g.kw, config.block_m, config.block_n, *epilogue,
                direct_hint(x, y, g), direct_multiplier(g))
        compiled = conv2d_bn_silu_direct_kernel[grid](*args, num_warps=config.num_warps, num_stages=1,
                                                      **register_cap(config))
        return compiled, grid, args
    # One implicit GEMM per bundle of groups (one group, unless they are small), bundles along the grid's second
    # axis, a tile's K slices next to each other along the first.
    split_k = split_k_of(config)
    grid = (triton.cdiv(m, config.block_m) * triton.cdiv(n, config.block_n) * split_k, g.groups // g.bundle, 1)
    scratch = _split_k_scratch(_split_workspace(g, config), y)
    args = (*pointers, *scratch, g.batch, g.bundle_c_in, g.h, g.w, g.bundle_c_out, g.oh, g.ow, *strides,
            g.groups // g.bundle, g.c_in_per_group, g.c_out_per_group, *division_magic(max(g.bundle_c_in, 1)),
            *window_magic(g), g.kh, g.kw, config.block_m, config.block_n,
            config.block_k, config.group_m, input_precision, *epilogue, g.bundle > 1, split_k,
            *vector_hints(x, weight, g), output_hint(y, g), flat_k_of(config), windows_by_multiplication_of(config))
    compiled = conv2d_bn_silu_kernel[grid](*args, num_warps=config.num_warps, num_stages=config.num_stages,
                                           **register_cap(config))
    return compiled, grid, args


def vector_hints(x, weight, g: ConvGeometry) -> tuple[int, int]:
    """The implicit GEMM's X_ALIGN and W_ALIGN (`channel_run_multiple` of a bundle's input channels in x and in
    the weight); W_ALIGN is 1 for a block-diagonal weight, whose rows are c % GROUP_C_IN, never a run."""
    return (channel_run_multiple(g.bundle_c_in, x),
            1 if g.bundle > 1 else channel_run_multiple(g.bundle_c_in, weight))


def output_hint(y, g: ConvGeometry) -> int:
    """The implicit GEMM's Y_ALIGN: `channel_run_multiple` of a bundle's output channels in y. Without it, 24 or
    40 output channels stored one element at a time, and the compiler laid out the whole tile's index arithmetic
    that way (sm_90, 40 channels at 64x64x64: 255 registers against 148 at 64 channels)."""
    return channel_run_multiple(g.bundle_c_out, y)


def division_magic(divisor: int) -> tuple[int, int]:
    """(magic, shift) such that n // divisor == (n * magic) >> shift for every 0 <= n < 2**31, magic < 2**32: the
    direct kernel's `divide_by_constant` by OW and OH, and the implicit GEMM's in flat K steps (OW, OH, C_in). With
    l = ceil(log2(divisor)), magic = floor(2**(31 + l) / divisor) + 1 is within 2**l of an exact
    2**(31 + l) / divisor, too little to move any quotient of a 31-bit n (Granlund and Montgomery, "Division by
    invariant integers using multiplication", 1994, theorem 4.2)."""
    if divisor < 1:
        raise ValueError(f"divisor must be positive; got {divisor}")
    shift = 31 + (divisor - 1).bit_length()
    return (1 << shift) // divisor + 1, shift


def window_magic(g: ConvGeometry) -> tuple[int, int, int, int]:
    """(OW_MAGIC, OW_SHIFT, OH_MAGIC, OH_SHIFT): both kernels' `division_magic` for a pixel index's divisions by OW and
    OH (`output_windows`). A launch has at least one output pixel (`conv2d_bn_silu` returns an empty y before)."""
    return (*division_magic(g.ow), *division_magic(g.oh))


def direct_multiplier(g: ConvGeometry) -> int:
    """The direct kernel's MULTIPLIER: depthwise with a channel multiplier of 2, 4 or 8 (which divides every
    tile's channels, a power of two >= 16), whose input channels the kernel loads as one run and repeats; 1 takes
    the general code, which gathers each output channel's input channel."""
    return g.c_out_per_group if g.c_in_per_group == 1 and g.c_out_per_group in (2, 4, 8) else 1


def direct_hint(x, y, g: ConvGeometry) -> int:
    """The direct kernel's CHANNEL_ALIGN: `channel_run_multiple` of C_in (which divides C_out) in x and y
    together, depthwise only (with a channel multiplier, `direct_multiplier`'s): there a tile's input channels
    are one run per pixel; with other multipliers or several channels per group they are not."""
    if g.c_in_per_group != 1 or (g.c_out_per_group != 1 and direct_multiplier(g) == 1):
        return 1
    return channel_run_multiple(g.c_in, x, y)


def channel_run_multiple(channels: int, *tensors: torch.Tensor) -> int:
    """What `channels` and the tensors' strides other than the channel dimension's (1) are all multiples of,
    where every tensor's channels are adjacent (stride 1): a power of two up to 8; 1 where they are not adjacent,
    or where every value is a multiple of 16, which Triton's own specialization already tells the compiler. The
    rule of matmul's `pointer_align` and the row kernels' ALIGN, capped at 8 elements for every dtype (a 16-byte
    fp16 vector; float32's 4-element vectors are proven by it as well, and were measured so)."""
    if any(t.stride(1) != 1 for t in tensors):
        return 1
    common = math.gcd(channels, *(s for t in tensors for dim, s in enumerate(t.stride()) if dim != 1))
    return 1 if common % 16 == 0 else math.gcd(common, 8)


def _split_workspace(g: ConvGeometry, config: Config) -> tuple[int, int, int, int] | None:
    """The implicit GEMM's split-K workspace shape (`_workspace_shape`), or None unsplit."""
    return _workspace_shape(g, config) if split_k_of(config) > 1 else None


def _split_k_scratch(workspace: tuple[int, int, int, int] | None, y: torch.Tensor):
    """Split-K's float32 workspace of that shape (fresh, from the caching allocator) and this stream's tile
    counters (zero between launches: the last slice of each tile resets its own), shared with matmul's split-K.
    Unsplit (None), the kernel never reads either: y's address stands in for both."""
    if workspace is None:
        return y, y
    return (y.new_empty(workspace, dtype=torch.float32),
            matmul_hopper.split_k_counters(y.device, workspace[0] * workspace[1]))


def _pointers_or_mean(per_channel):
    """bias, mean, var, gamma, beta with the running mean standing in for an absent one: its HAS_... is False,
    so the kernel never reads it, but a pointer argument cannot be None in a recorded launch."""
    mean = per_channel[1]
    return tuple(mean if t is None else t for t in per_channel)


# -- replays -----------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class _ConvReplay:
    """A launch recorded for one call signature: replaying it skips checks, planning and Triton's binder."""

    launch: object  # bound_launch.bind_launch_on_stream(...) of the conv kernel
    channels_last: bool
    out_shape: tuple[int, int, int, int]  # [batch, C_out, OH, OW]
    direct: bool  # the direct kernel: no split-K scratch after y
    workspace: tuple[int, int, int, int] | None  # the implicit GEMM's split-K workspace shape (fresh each call)

    def __call__(self, x, weight, per_channel) -> torch.Tensor:
        batch, c_out, oh, ow = self.out_shape
        if self.channels_last:  # NHWC in memory, seen as NCHW
            y = x.new_empty((batch, oh, ow, c_out)).permute(0, 3, 1, 2)
        else:
            y = x.new_empty(self.out_shape)
        scratch = () if self.direct else _split_k_scratch(self.workspace, y)
        self.launch(x.data_ptr(), weight.data_ptr(), *(t.data_ptr() for t in _pointers_or_mean(per_channel)),
                    y.data_ptr(), *(t.data_ptr() for t in scratch))
        return y


_REPLAYS: dict[tuple, _ConvReplay] = {}


def _replay_key(x, weight, per_channel, eps, stride, padding, dilation, groups, precision, config,
                silu) -> tuple | None:
    """Everything a recorded launch depends on but the addresses (and those modulo 16: Triton specializes
    pointers on 16-byte alignment), or None where no replay may serve the call."""
    if not (isinstance(x, torch.Tensor) and isinstance(weight, torch.Tensor) and x.is_cuda):
        return None
    if torch.is_grad_enabled() and (x.requires_grad or weight.requires_grad):
        return None  # autograd goes through the custom op
    try:
        signature = [x.shape, x.stride(), weight.shape, weight.stride(), x.dtype, weight.dtype, x.get_device(),
                     weight.get_device(), x.data_ptr() % 16, weight.data_ptr() % 16]
        for t in per_channel:
            if t is None:
                signature.append(None)
            elif not isinstance(t, torch.Tensor) or t.requires_grad or t.dim() != 1 or t.stride(0) != 1:
                return None  # the full path checks it, copies it contiguous, or differentiates it
            else:
                signature.append((t.shape, t.dtype, t.get_device(), t.data_ptr() % 16))
    except RuntimeError:  # a sparse tensor: no strides or storage, no key (the contract check refuses it)
        return None
    key = (*signature, eps, stride, padding, dilation, groups, precision, config, silu)
    try:
        hash(key)
    except TypeError:  # a list for a pair, say: fine for the full path, no replay
        return None
    return key


def describe_plan(x, weight, bias=None, *, running_mean, running_var, bn_weight=None, bn_bias=None, eps=1e-5,
                  stride=1, padding=0, dilation=1, groups=1, precision=None, config=None, silu=True) -> dict:
    """The kernel ("path": "implicit_gemm" or "direct"), one group's GEMM sizes and the config `conv2d_bn_silu`
    uses for these arguments (its tuned choice, once tuned)."""
    g = _check(x, weight, bias, running_mean, running_var, bn_weight, bn_bias, eps, stride, padding, dilation,
               groups, precision, config, silu)
    chosen = _choose_config(x, weight, g, _input_precision(x, precision), config, silu)
    m, n, k = g.gemm()
    return {"function": "tilelab.conv2d_bn_silu", "path": kernel_path(g), "groups": g.groups,
            "groups_per_tile": g.bundle, "gemm": {"M": m, "N": n, "K": k}, "config": chosen.as_dict(),
            "x_layout": _layout(x), "weight_layout": _layout(weight)}


# -- autograd ----------------------------------------------------------------------------------------------


def _differentiable(x, weight, bias, running_mean, running_var, bn_weight, bn_bias, eps, g: ConvGeometry,
                    precision, config, silu):
    """Route through `torch.ops.tilelab.conv2d_bn_silu` (tilelab/library.py), whose backward recomputes the
    forward with torch's own ops."""
    if isinstance(config, Config):
        raise contracts.ContractError(
            "config must be a name (e.g. 'seed') when an input requires grad, or under torch.compile: the op "
            "carries only names; pass an explicit Config to an eager call under torch.no_grad()")
    import tilelab.library  # noqa: F401  registers the op on first use

    return torch.ops.tilelab.conv2d_bn_silu(x, weight, bias, running_mean, running_var, bn_weight, bn_bias,
                                            float(eps), list(g.stride), list(g.padding), list(g.dilation),
                                            precision, config, silu, g.groups)


# -- inspection (kernel-inspect, compile tests) ------------------------------------------------------------

_TRITON_TYPE = {torch.float16: "fp16", torch.bfloat16: "bf16", torch.float32: "fp32"}


def inspection_source(dtype: torch.dtype = torch.float16, precision: str | None = None,
                      config: str | Config | None = None, kernel_size: int = 3, groups: int = 1,
                      channels: int = 64, out_channels: int | None = None):
    """(kernel, signature, constexprs, attrs, config) for `triton.compiler.ASTSource`, as a launch on channels-last
    x, weight and output (`channels` in, `out_channels` out: as many unless given; 56x56 images) would specialize
    it: integers equal to 1 are constants (the channel strides; a depthwise weight's column stride and channels
    per group), pointers, strides and channel counts that are multiples of 16 are known to be, and
    `vector_hints`/`output_hint` tell the rest.

    `groups` (a divisor of `channels`) picks the kernel as a launch does: as many as the channels (depthwise) the
    direct kernel, else the implicit GEMM (over bundles of groups where they have under 16 input channels)."""
    from tilelab.kernels.conv import conv2d_bn_silu_direct_kernel, conv2d_bn_silu_kernel

    if dtype not in _TRITON_TYPE:
        raise contracts.DTypeError(f"dtype must be float16, bfloat16 or float32; got {dtype}")
    if precision is not None and dtype != torch.float32:
        raise contracts.ContractError("precision applies to float32 only")
    if isinstance(channels, bool) or not isinstance(channels, int) or channels < 1:
        raise contracts.ContractError(f"channels must be a positive integer; got {channels!r}")
    if isinstance(groups, bool) or not isinstance(groups, int) or groups < 1 or channels % groups:
        raise contracts.ContractError(f"groups must divide the {channels} channels inspected; got {groups!r}")
    out_channels = channels if out_channels is None else out_channels
    if isinstance(out_channels, bool) or not isinstance(out_channels, int) or out_channels < 1 or out_channels % groups:
        raise contracts.ContractError(f"out_channels must be a positive multiple of the {groups} groups; "
                                      f"got {out_channels!r}")
    geometry = ConvGeometry(32, channels, 56, 56, out_channels, kernel_size, kernel_size, (1, 1),
                            (kernel_size // 2,) * 2, (1, 1), groups)
    found = candidates(geometry, torch.finfo(dtype).bits // 8)
    if isinstance(config, str):  # a name, or a candidate's label
        split = [ConvConfig(**c.as_dict(), split_k=k) for c in _fitted(SPLIT_K_TILES, geometry, dtype.itemsize)
                 for k in SPLIT_K_FACTORS]  # the inspected layer is too large to split: named, they compile
        known = {**NAMED_CONFIGS, **{c.label(): c for c in (*found, *split)}}
        contracts.require_choice(config, "config", known)
        config = known[config]
    config = config or found[0]

    images = torch.empty((32, channels, 56, 56), device="meta").to(memory_format=torch.channels_last)  # x
    outputs = torch.empty((32, out_channels, 56, 56), device="meta").to(memory_format=torch.channels_last)
    weight = torch.empty((out_channels, geometry.c_in_per_group, kernel_size, kernel_size), device="meta")
    weight = weight.to(memory_format=torch.channels_last)
    integers = dict(zip(("stride_xn", "stride_xc", "stride_xh", "stride_xw", "stride_wo", "stride_wc", "stride_wh",
                         "stride_ww", "stride_yn", "stride_yc", "stride_yh", "stride_yw"),
                        (*images.stride(), *weight.stride(), *outputs.stride()), strict=True))
    integers.update(zip(("OW_MAGIC", "OW_SHIFT", "OH_MAGIC", "OH_SHIFT"), window_magic(geometry), strict=True))
    constexprs = {"KH": kernel_size, "KW": kernel_size, "BLOCK_M": config.block_m, "OFFSETS_64": False, "SILU": True,
                  "HAS_BIAS": True, "HAS_GAMMA": True, "HAS_BETA": True}
    if uses_direct_kernel(geometry):
        kernel = conv2d_bn_silu_direct_kernel
        integers.update(C_OUT=geometry.c_out, C_IN_PER_GROUP=geometry.c_in_per_group,
                        C_OUT_PER_GROUP=geometry.c_out_per_group)
        constexprs.update(BLOCK_C=config.block_n, CHANNEL_ALIGN=direct_hint(images, outputs, geometry),
                          MULTIPLIER=direct_multiplier(geometry))
    else:
        kernel = conv2d_bn_silu_kernel
        integers.update(C_IN=geometry.bundle_c_in, C_OUT=geometry.bundle_c_out, GROUPS=groups // geometry.bundle,
                        GROUP_C_IN=geometry.c_in_per_group, GROUP_C_OUT=geometry.c_out_per_group,
                        **dict(zip(("C_IN_MAGIC", "C_IN_SHIFT"), division_magic(geometry.bundle_c_in), strict=True)))
        constexprs.update(BLOCK_N=config.block_n, BLOCK_K=config.block_k, GROUP_M=config.group_m,
                          INPUT_PRECISION=(precision or "tf32"), BLOCK_DIAGONAL=geometry.bundle > 1,
                          SPLIT_K=split_k_of(config), FLAT_K=flat_k_of(config),
                          WINDOWS_BY_MULTIPLICATION=windows_by_multiplication_of(config))
        constexprs.update(zip(("X_ALIGN", "W_ALIGN"), vector_hints(images, weight, geometry), strict=True),
                          Y_ALIGN=output_hint(outputs, geometry))

    pointer = "*" + _TRITON_TYPE[dtype]
    signature = {"x_ptr": pointer, "w_ptr": pointer, **{f"{name}_ptr": "*fp32" for name in PER_CHANNEL},
                 "y_ptr": pointer}
    aligned = ["x_ptr", "w_ptr", "y_ptr"]
    if kernel is conv2d_bn_silu_kernel:
        signature.update(ws_ptr="*fp32", counters_ptr="*i32")
        aligned += ["ws_ptr", "counters_ptr"]
    for name in kernel.arg_names[len(signature):]:
        value = integers.get(name)
        if name in constexprs or value == 1:  # Triton makes an integer argument equal to 1 a constant
            signature[name] = "constexpr"
            constexprs.setdefault(name, value)
        else:
            signature[name] = "fp32" if name == "EPS" else "u32" if value is not None and value >= 2**31 else "i32"
            if value is not None and value % 16 == 0:
                aligned.append(name)
    attrs = {(kernel.arg_names.index(name),): [["tt.divisibility", 16]] for name in aligned}
    return kernel, signature, constexprs, attrs, config
