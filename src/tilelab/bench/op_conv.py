"""The conv2d_bn_silu entries: SiLU(batch_norm(conv2d(x, w, b))) in inference mode, as a CNN block runs it.

`--op conv2d_bn_silu`: shapes given as batch C_in H W C_out kernel stride: a square filter, padded by kernel // 2
on every side. `--op conv2d_bn_silu-grouped`: the same and groups (batch C_in H W C_out kernel stride groups):
depthwise and grouped layers of MobileNet, EfficientNet and ResNeXt. x and the weight are channels-last
(`torch.channels_last`), the memory format fast convolutions on tensor cores use; the output follows x's format.
The baseline is torch's three ops as an eval-mode model runs them (cuDNN's convolution, then batch norm, then
SiLU); `torch-folded` is what a deployment does by hand: the batch norm folded into the convolution's weight and
bias, then SiLU.

The inputs end with the stride, and for the grouped op the groups: every function below takes `groups=1` last,
so both ops share them.
"""

import contextlib
import dataclasses
import math

import torch

from tilelab.bench.registry import OpSpec, Variant, VariantOptions

DEFAULT_SHAPES = (
    # ResNet-50 at batch 32: 3x3 convolutions of each stage, and a 1x1 reduction and expansion
    (32, 64, 56, 56, 64, 3, 1), (32, 128, 28, 28, 128, 3, 1), (32, 256, 14, 14, 256, 3, 1),
    (32, 512, 7, 7, 512, 3, 1), (32, 256, 56, 56, 64, 1, 1), (32, 64, 56, 56, 256, 1, 1),
    # YOLO-like blocks on 640x640 images at batch 8: the 3-channel stem, a stride-2 downsampling, a wide 3x3
    (8, 3, 640, 640, 32, 3, 2), (8, 128, 80, 80, 256, 3, 2), (8, 256, 40, 40, 256, 3, 1),
    # ragged: nothing divides a tile, channels off every power of two
    (7, 33, 31, 29, 65, 3, 1),
)
# Small enough for Triton's interpreter: ragged pixels and channels, a stride, a 1x1 and a 3x3.
CHECK_SHAPES = ((2, 5, 9, 11, 7, 3, 1), (1, 16, 8, 8, 33, 1, 1), (2, 3, 10, 9, 12, 3, 2))

# batch C_in H W C_out kernel stride groups (results/h200-conv2d_bn_silu-grouped-*.json)
GROUPED_DEFAULT_SHAPES = (
    # EfficientNet-B0 / MobileNetV2 depthwise layers at batch 32, 224x224 images (C_in = C_out = groups)
    (32, 96, 112, 112, 96, 3, 2, 96), (32, 144, 56, 56, 144, 3, 1, 144), (32, 240, 28, 28, 240, 5, 1, 240),
    (32, 480, 14, 14, 480, 3, 1, 480), (32, 672, 14, 14, 672, 5, 1, 672), (32, 1152, 7, 7, 1152, 5, 1, 1152),
    # MobileNetV3-Large's of 72 and 120 channels (multiples of 8, not of 16: `ops.conv.direct_hint`)
    (32, 72, 56, 56, 72, 3, 1, 72), (32, 120, 28, 28, 120, 5, 1, 120),
    # depthwise with a channel multiplier of 2
    (32, 64, 56, 56, 128, 3, 1, 64),
    # ResNeXt-50 32x4d's grouped 3x3 convolutions: 4 and 8 channels per group (bundles of groups per tile)
    (32, 128, 56, 56, 128, 3, 1, 32), (32, 256, 28, 28, 256, 3, 1, 32),
    # RegNetX-1.6GF's, 24 channels per group (a multiple of 8, not 16: `ops.conv.vector_hints`)
    (32, 168, 28, 28, 168, 3, 1, 7), (32, 408, 14, 14, 408, 3, 1, 17),
    # 32 channels per group: the implicit GEMM, one per group
    (32, 256, 28, 28, 256, 3, 1, 8),
    # ragged: depthwise, channels and pixels off every power of two
    (7, 36, 31, 29, 36, 3, 1, 36),
)
# Small enough for Triton's interpreter: depthwise ragged, a channel multiplier with a stride, and the implicit
# GEMM with 16 input channels per group.
GROUPED_CHECK_SHAPES = ((2, 6, 9, 7, 6, 3, 1, 6), (1, 4, 8, 9, 8, 3, 2, 4), (1, 32, 6, 5, 32, 3, 1, 2))
EPS = 1e-5


def _randn(shape, dtype, device, generator):
    # Standard normal in float32, then rounded: never zeros, never a pattern a wrong index could match.
    return torch.randn(shape, generator=generator, device=device, dtype=torch.float32).to(dtype)


def _groups(shape) -> int:
    """The grouped op's shapes end with the groups; the dense op's have none (1)."""
    return shape[7] if len(shape) > 7 else 1


def geometry(shape):
    """A shape of either op as the library's ConvGeometry: a square filter, padded kernel // 2, no dilation."""
    from tilelab.ops.conv import ConvGeometry

    batch, c_in, h, w, c_out, kernel, stride = shape[:7]
    return ConvGeometry(batch, c_in, h, w, c_out, kernel, kernel, (stride, stride), (kernel // 2,) * 2, (1, 1),
                        _groups(shape))


def validate(shape) -> str | None:
    """Positive numbers are checked by the sweep; the groups must also split both channel counts."""
    _, c_in, _, _, c_out = shape[:5]
    groups = _groups(shape)
    if c_in % groups or c_out % groups:
        return f"groups = {groups} must divide C_in = {c_in} and C_out = {c_out}"
    return None


def make_inputs(shape, dtype, device, generator):
    batch, c_in, h, w, c_out, kernel, stride = shape[:7]
    groups = _groups(shape)
    if groups < 1 or c_in % groups or c_out % groups:
        raise ValueError(f"groups = {groups} must divide C_in = {c_in} and C_out = {c_out}")
    x = _randn((batch, c_in, h, w), dtype, device, generator).to(memory_format=torch.channels_last)
    # Scaled by 1/sqrt(fan-in), as initializations do: outputs of order 1, where SiLU is not just a ReLU.
    fan_in = c_in // groups * kernel * kernel
    weight = (_randn((c_out, c_in // groups, kernel, kernel), torch.float32, device, generator)
              / math.sqrt(fan_in)).to(dtype).to(memory_format=torch.channels_last)
    bias = _randn((c_out,), dtype, device, generator)
    mean = _randn((c_out,), dtype, device, generator)
    var = _randn((c_out,), dtype, device, generator).abs() + 0.5
    gamma = _randn((c_out,), dtype, device, generator)
    beta = _randn((c_out,), dtype, device, generator)
    return (x, weight, bias, mean, var, gamma, beta, stride) + ((groups,) if len(shape) > 7 else ())


def _conv_options(weight, stride, groups=1):
    return {"stride": stride, "padding": weight.shape[-1] // 2, "groups": groups}


def reference(x, weight, bias, mean, var, gamma, beta, stride, groups=1):
    from tilelab.reference import conv2d_bn_silu_reference

    if x.device.type == "cpu":
        return conv2d_bn_silu_reference(x, weight, bias, running_mean=mean, running_var=var, bn_weight=gamma,
                                        bn_bias=beta, eps=EPS, **_conv_options(weight, stride, groups))
    # The same float64 values computed on the GPU: large batches take minutes in float64 on the host.
    f64 = [t.to(torch.float64) for t in (x, weight, bias, mean, var, gamma, beta)]
    z = torch.nn.functional.conv2d(f64[0], f64[1], f64[2], **_conv_options(weight, stride, groups))
    z = torch.nn.functional.batch_norm(z, f64[3], f64[4], f64[5], f64[6], training=False, eps=EPS)
    return torch.nn.functional.silu(z)


def output_size(shape) -> tuple[int, int]:
    _, _, h, w, _, kernel, stride = shape[:7]
    pad = kernel // 2
    return (h + 2 * pad - kernel) // stride + 1, (w + 2 * pad - kernel) // stride + 1


def flops(shape):
    """2 * pixels * C_out * (C_in / groups) * kernel^2: each output channel sums over its group's channels only."""
    batch, c_in, _, _, c_out, kernel, _ = shape[:7]
    oh, ow = output_size(shape)
    return 2 * batch * oh * ow * c_out * (c_in // _groups(shape)) * kernel * kernel


def bytes_moved(shape, dtype):
    batch, c_in, h, w, c_out, kernel, _ = shape[:7]
    oh, ow = output_size(shape)
    size = torch.empty((), dtype=dtype).element_size()
    weight = c_out * (c_in // _groups(shape)) * kernel * kernel
    return (batch * c_in * h * w + weight + batch * c_out * oh * ow) * size


def tolerance(dtype, precision):
    from tilelab.reference import tolerance as library_tolerance

    return library_tolerance(dtype, precision)


@contextlib.contextmanager
def _cudnn_precision(precision: str | None):
    """float32 convolutions in torch as close as it gets to tilelab's precision: TF32 only for "tf32"."""
    saved = torch.backends.cudnn.allow_tf32
    torch.backends.cudnn.allow_tf32 = (precision or "tf32") == "tf32"
    try:
        yield
    finally:
        torch.backends.cudnn.allow_tf32 = saved


def _unfused(x, weight, bias, mean, var, gamma, beta, stride, groups=1):
    functional = torch.nn.functional
    z = functional.conv2d(x, weight, bias, **_conv_options(weight, stride, groups))
    return functional.silu(functional.batch_norm(z, mean, var, gamma, beta, training=False, eps=EPS))


def _folded(x, weight, bias, mean, var, gamma, beta, stride, groups=1):
    scale = gamma * torch.rsqrt(var + EPS)
    folded_weight = weight * scale.view(-1, 1, 1, 1)
    folded_bias = beta + (bias - mean) * scale
    return torch.nn.functional.silu(torch.nn.functional.conv2d(x, folded_weight, folded_bias,
                                                               **_conv_options(weight, stride, groups)))


def variants(options: VariantOptions) -> list[Variant]:
    import tilelab

    precision = options.precision if options.dtype == torch.float32 else None

    def with_torch_precision(function):
        def run(*inputs):
            with _cudnn_precision(precision):
                return function(*inputs)
        return run

    def tilelab_run(config=None):
        def run(x, weight, bias, mean, var, gamma, beta, stride, groups=1):
            return tilelab.conv2d_bn_silu(x, weight, bias, running_mean=mean, running_var=var, bn_weight=gamma,
                                          bn_bias=beta, eps=EPS, precision=precision, config=config,
                                          **_conv_options(weight, stride, groups))
        return run

    def tilelab_plan(config=None):
        def plan(x, weight, bias, mean, var, gamma, beta, stride, groups=1):
            from tilelab.ops.conv import describe_plan

            return {"library": "tilelab", **describe_plan(
                x, weight, bias, running_mean=mean, running_var=var, bn_weight=gamma, bn_bias=beta, eps=EPS,
                precision=precision, config=config, **_conv_options(weight, stride, groups))}
        return plan

    def torch_plan(functions):
        return lambda *inputs: {"library": "torch", "functions": functions,
                                "cudnn_allow_tf32": (precision or "tf32") == "tf32"}

    found = [
        Variant("torch", with_torch_precision(_unfused), torch_plan("conv2d (cuDNN), batch_norm, silu"), baseline=True,
                description="torch's three ops, as an eval-mode model runs them"),
        Variant("torch-folded", with_torch_precision(_folded),
                torch_plan("batch norm folded into conv2d's weight and bias, silu"),
                description="the batch norm folded into the convolution by hand, then SiLU (the fold is timed)"),
        Variant("tilelab", tilelab_run(), tilelab_plan(),
                description="tilelab.conv2d_bn_silu: implicit GEMM (or, grouped under 16 input channels per "
                            "group, the direct kernel), batch norm and SiLU in the epilogue"),
        Variant("tilelab-seed", tilelab_run("seed"), tilelab_plan("seed"), default=False,
                description="the seed chapter's 32x32x32 tiles, GROUP_M 8 (direct kernel: 32 pixels x 32 "
                            "channels)"),
    ]
    if options.compile and options.on_gpu:
        compiled = torch.compile(_unfused, mode=options.compile_mode, dynamic=False)
        found.append(Variant("torch-compile", with_torch_precision(compiled),
                             torch_plan(f"torch.compile of the three ops, mode={options.compile_mode!r}"),
                             description=f"torch.compile(mode={options.compile_mode!r}) of the three ops"))
    return found


OP = OpSpec(
    name="conv2d_bn_silu",
    dims=("batch", "C_in", "H", "W", "C_out", "kernel", "stride"),
    default_shapes=DEFAULT_SHAPES,
    check_shapes=CHECK_SHAPES,
    dtypes=("float16", "bfloat16", "float32"),
    make_inputs=make_inputs,
    reference=reference,
    flops=flops,
    bytes_moved=bytes_moved,
    variants=variants,
    tolerance=tolerance,
    metric="tflops",
    compile_baseline=True,
    validate=validate,
    description="SiLU(batch_norm(conv2d(x, w, b))), inference-mode batch norm, channels-last, padding kernel // 2",
)
GROUPED_OP = dataclasses.replace(
    OP, name="conv2d_bn_silu-grouped", dims=(*OP.dims, "groups"), default_shapes=GROUPED_DEFAULT_SHAPES,
    check_shapes=GROUPED_CHECK_SHAPES,
    description="SiLU(batch_norm(conv2d(x, w, b, groups=groups))), inference-mode batch norm, channels-last, padding "
                "kernel // 2; depthwise and grouped layers")
OPS = (OP, GROUPED_OP)
