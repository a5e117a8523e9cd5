"""tilelab.conv2d_bn_silu against torch's three ops in float64 (on the interpreter without a GPU, else on it)."""

import math

import pytest
import torch

import tilelab
from tests.helpers import randn, to_tf32
from tilelab.ops import conv as conv_op
from tilelab.reference import conv2d_bn_silu_reference, relative_error, tolerance

GUARD = 257  # elements of NaN on each side of every output: a write outside it changes one


@pytest.fixture
def guarded_outputs(monkeypatch):
    """Every output starts as NaN inside a NaN guard band: an element never written stays NaN and fails the
    comparison, and a write past either end shows up in the guards (checked by `check_guards`)."""
    real = conv_op._allocate_output
    made = []

    def guarded(x, geometry):
        out = real(x, geometry)
        storage = torch.full((out.numel() + 2 * GUARD,), float("nan"), dtype=out.dtype, device=out.device)
        view = storage[GUARD:GUARD + out.numel()].as_strided(out.shape, out.stride())
        made.append(storage)
        return view

    monkeypatch.setattr(conv_op, "_allocate_output", guarded)
    return made


def check_guards(made):
    for storage in made:
        assert torch.isnan(storage[:GUARD]).all() and torch.isnan(storage[-GUARD:]).all(), "write out of bounds"


def make_problem(batch, c_in, h, w, c_out, kernel, dtype, device, rng, *, affine=True, conv_bias=True, groups=1):
    kh, kw = (kernel, kernel) if isinstance(kernel, int) else kernel
    x = randn((batch, c_in, h, w), dtype, device, rng)
    fan_in = c_in // groups * kh * kw
    weight = randn((c_out, c_in // groups, kh, kw), dtype, device, rng) / math.sqrt(max(1, fan_in))
    params = {
        "running_mean": randn((c_out,), torch.float32, device, rng),
        "running_var": randn((c_out,), torch.float32, device, rng).abs() + 0.5,
        "bn_weight": randn((c_out,), torch.float32, device, rng) if affine else None,
        "bn_bias": randn((c_out,), torch.float32, device, rng) if affine else None,
    }
    bias = randn((c_out,), torch.float32, device, rng) if conv_bias else None
    return x, weight, bias, params


def rounding_noise(x, weight, params, *, eps=1e-5, stride=1, padding=0, dilation=1, groups=1, silu=True):
    """The size of the rounding noise each output carries: the root-sum-square of the products its convolution
    sums (each rounded to the input type, or to tf32, with the same relative error), times batch norm's scale
    (SiLU, where applied, changes it by a factor under 1.1).
    Batch norm subtracts the mean after the sum, so an output near the mean keeps the noise of the whole sum:
    measured against the output alone, a one-pixel layer rounded to tf32 can miss by 4e-3 with nothing wrong."""
    def f64(t):
        return t.detach().to("cpu", torch.float64)

    products = torch.nn.functional.conv2d(f64(x) ** 2, f64(weight) ** 2, stride=stride, padding=padding,
                                          dilation=dilation, groups=groups).sqrt()
    scale = torch.rsqrt(f64(params["running_var"]) + eps)
    if params["bn_weight"] is not None:
        scale = scale * f64(params["bn_weight"]).abs()
    return products * scale[:, None, None]


def assert_matches(y, x, weight, bias, params, *, precision=None, label="", **conv):
    """y against the float64 reference, its error measured against the larger of the reference and the
    rounding noise the sum carries (`rounding_noise`), so that cancellation in batch norm is not a failure."""
    ref = conv2d_bn_silu_reference(x, weight, bias, **params, **conv)
    assert tuple(y.shape) == tuple(ref.shape), f"{label}: shape {tuple(y.shape)}, expected {tuple(ref.shape)}"
    assert y.dtype == x.dtype
    if not torch.isfinite(y).all():
        raise AssertionError(f"{label}: the output holds NaN or inf")
    diff = (y.detach().to("cpu", torch.float64) - ref).norm().item()
    err = diff / max(ref.norm().item(), rounding_noise(x, weight, params, **conv).norm().item(), 1e-300)
    allowed = tolerance(x.dtype, precision)
    assert err <= allowed, f"{label}: relative error {err:.3e} > {allowed:.1e}"


def test_the_comparison_forgives_rounding_and_not_bugs(rng):
    """assert_matches itself: the one-pixel layer of the GPU fuzz test's seed 974 (tf32 truncation alone missed
    the output by 4.07e-3 after batch norm's cancellation) passes, as does a layer rounded to tf32 on fresh
    inputs; a missing tap or a mean shifted by 1% fails."""
    x, weight, bias, params = make_problem(1, 1, 1, 1, 1, 1, torch.float32, "cpu",
                                           torch.Generator().manual_seed(974), affine=False, conv_bias=False)
    cut = {"truncate": True}  # as wgmma reads float32
    truncated = conv2d_bn_silu_reference(to_tf32(x, **cut), to_tf32(weight, **cut), bias, **params).float()
    assert relative_error(truncated, conv2d_bn_silu_reference(x, weight, bias, **params)) > 4e-3
    assert_matches(truncated, x, weight, bias, params)

    conv = {"stride": 2, "padding": 1}
    x, weight, bias, params = make_problem(2, 17, 9, 11, 33, 3, torch.float32, "cpu", rng)
    assert_matches(conv2d_bn_silu_reference(to_tf32(x, **cut), to_tf32(weight, **cut), bias, **params, **conv).float(),
                   x, weight, bias, params, **conv)
    missing_tap = weight.clone()
    missing_tap[:, :, 1, 1] = 0
    shifted = {**params, "running_mean": params["running_mean"] * 1.01}
    for y in (conv2d_bn_silu_reference(x, missing_tap, bias, **params, **conv).float(),
              conv2d_bn_silu_reference(x, weight, bias, **shifted, **conv).float()):
        with pytest.raises(AssertionError, match="relative error"):
            assert_matches(y, x, weight, bias, params, **conv)


GEOMETRIES = [
    # batch, c_in, h, w, c_out, kernel, stride, padding, dilation
    (1, 1, 1, 1, 1, 1, 1, 0, 1),  # one pixel, one channel
    (1, 3, 7, 7, 5, 3, 1, 1, 1),  # RGB-like input, 3x3 "same"
    (2, 17, 9, 11, 33, 3, 2, 1, 1),  # stride 2, nothing divides a tile
    (1, 5, 12, 12, 7, 3, 1, 2, 2),  # dilated
    (2, 40, 6, 6, 70, 3, 1, 1, 1),  # C_in longer than one K step: several channel runs per tap
    (3, 7, 5, 13, 65, 1, 1, 0, 1),  # 1x1: a plain GEMM over pixels
    (1, 4, 8, 9, 6, (3, 1), 1, (1, 0), 1),  # a non-square filter, padding per side
    (1, 6, 5, 5, 9, 1, 3, 2, 1),  # padding wider than the filter: border pixels see only padding
    (2, 3, 15, 15, 127, 5, (2, 3), 2, 1),  # 127 channels out, unequal strides
]
# The same, and groups: the direct kernel under 16 input channels per group, the implicit GEMM per group from 16.
GROUPED_GEOMETRIES = [
    (1, 3, 5, 6, 4, 3, 1, 1, 1, 1),  # groups=1 given: the implicit GEMM as without groups
    (2, 4, 7, 9, 4, 3, 1, 1, 1, 2),  # 2 groups of 2 channels
    (1, 8, 6, 7, 8, 3, 1, 1, 1, 4),  # 4 groups of 2
    (2, 7, 9, 8, 7, 3, 1, 1, 1, 7),  # depthwise, 7 channels
    (1, 65, 5, 6, 65, 3, 2, 1, 1, 65),  # depthwise, 65 channels: a second channel tile with one channel; stride 2
    (2, 5, 8, 8, 10, 3, 1, 2, 2, 5),  # depthwise with a channel multiplier of 2, dilated
    (1, 4, 7, 7, 12, 5, 1, 2, 1, 4),  # channel multiplier 3, 5x5
    (1, 9, 6, 5, 6, 3, 2, 0, 1, 3),  # 3 input and 2 output channels per group, no padding
    (1, 16, 5, 5, 16, 3, 1, 1, 1, 2),  # 8 per group on the direct kernel
    (3, 6, 5, 4, 6, 1, 1, 0, 1, 6),  # depthwise 1x1
    (1, 32, 5, 5, 32, 3, 1, 1, 1, 2),  # 16 per group: the implicit GEMM, one per group
    (1, 34, 4, 5, 34, 1, 1, 0, 1, 2),  # 17 per group: the implicit GEMM with a ragged K step and N
]


def _with_groups(g):
    return g if len(g) == 10 else (*g, 1)


def _ids(g):
    return "x".join(map(str, g[:5])) + f"-k{g[5]}-s{g[6]}-p{g[7]}-d{g[8]}" + (f"-g{g[9]}" if len(g) == 10 else "")


def check_geometry(geometry, dtype, precision, device, rng, guarded_outputs):
    """One call with this geometry (and groups), against float64, every output written and nothing outside it."""
    batch, c_in, h, w, c_out, kernel, stride, padding, dilation, groups = _with_groups(geometry)
    x, weight, bias, params = make_problem(batch, c_in, h, w, c_out, kernel, dtype, device, rng, groups=groups)
    conv = {"stride": stride, "padding": padding, "dilation": dilation, "groups": groups}
    y = tilelab.conv2d_bn_silu(x, weight, bias, **params, precision=precision, **conv)
    assert_matches(y, x, weight, bias, params, precision=precision, label=_ids(geometry), **conv)
    check_guards(guarded_outputs)


ALL_GEOMETRIES = GEOMETRIES + GROUPED_GEOMETRIES


@pytest.mark.parametrize("geometry", ALL_GEOMETRIES, ids=[_ids(g) for g in ALL_GEOMETRIES])
@pytest.mark.parametrize("dtype,precision", [(torch.float32, "tf32"), (torch.float32, "ieee"), (torch.float16, None)])
def test_matches_float64(geometry, dtype, precision, device, rng, guarded_outputs):
    check_geometry(geometry, dtype, precision, device, rng, guarded_outputs)


@pytest.mark.gpu
@pytest.mark.parametrize("geometry", ALL_GEOMETRIES, ids=[_ids(g) for g in ALL_GEOMETRIES])
def test_bfloat16_matches_float64(geometry, device, rng, guarded_outputs):
    check_geometry(geometry, torch.bfloat16, None, device, rng, guarded_outputs)


LAYOUTS = ["channels_last", "weight_channels_last", "sliced", "weight_sliced", "cropped", "transposed_hw"]


def stored(x, weight, layout):
    """x and weight with the same values, stored as `layout` says; what a view skips is NaN, so that reading it
    shows in the result."""
    def inside_nan(shape, index, values):
        wide = torch.full(shape, float("nan"), dtype=values.dtype, device=values.device)
        wide[index] = values
        return wide[index]

    b, c, h, w = x.shape
    if layout == "channels_last":
        return x.to(memory_format=torch.channels_last), weight
    if layout == "weight_channels_last":
        return x, weight.to(memory_format=torch.channels_last)
    if layout == "sliced":  # every other channel of a wider tensor
        return inside_nan((b, 2 * c, h, w), (slice(None), slice(None, None, 2)), x), weight
    if layout == "weight_sliced":  # every other filter of a wider weight
        return x, inside_nan((2 * weight.shape[0], *weight.shape[1:]), slice(None, None, 2), weight)
    if layout == "cropped":  # a window of a larger image
        return inside_nan((b, c, h + 4, w + 4), (slice(None), slice(None), slice(2, 2 + h), slice(3, 3 + w)), x), weight
    return x.transpose(2, 3).contiguous().transpose(2, 3), weight  # H and W swapped in memory


# (C_in, C_out, groups): dense; depthwise and depthwise with a channel multiplier (direct); 16 per group (GEMM).
STRIDED_CHANNELS = [(12, 24, 1), (12, 12, 12), (12, 24, 12), (32, 32, 2)]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("c_in,c_out,groups", STRIDED_CHANNELS, ids=["dense", "depthwise", "multiplier", "gemm-2"])
def test_any_strides(layout, c_in, c_out, groups, device, rng, guarded_outputs):
    x, weight, bias, params = make_problem(2, c_in, 10, 9, c_out, 3, torch.float16, device, rng, groups=groups)
    x, weight = stored(x, weight, layout)
    y = tilelab.conv2d_bn_silu(x, weight, bias, **params, padding=1, groups=groups)
    assert_matches(y, x, weight, bias, params, label=layout, padding=1, groups=groups)
    check_guards(guarded_outputs)
    # The output keeps x's memory format, as torch's convolution does.
    assert y.is_contiguous(memory_format=torch.channels_last) == (layout == "channels_last")


# Channel runs that are multiples of 2, 4 or 8 but not 16: the launcher tells the kernel (`vector_hints`),
# which rounds C_IN and the pixel strides down to that multiple. (c_in, c_out, groups, x's stored channels).
HINTED = [(24, 24, 1, 24), (20, 12, 1, 20), (6, 10, 1, 6), (48, 48, 2, 48), (24, 16, 1, 40), (24, 24, 1, 36),
          (12, 12, 4, 12)]


def _hinted_problem(c_in, c_out, groups, stored_channels, device, rng):
    x, weight, bias, params = make_problem(2, c_in, 7, 6, c_out, 3, torch.float32, device, rng, groups=groups)
    wide = torch.full((2, stored_channels, 7, 6), float("nan"), device=device).to(memory_format=torch.channels_last)
    wide[:, :c_in] = x
    return wide[:, :c_in], weight.to(memory_format=torch.channels_last), bias, params


@pytest.mark.parametrize("c_in,c_out,groups,stored_channels", HINTED, ids=lambda v: str(v))
def test_hinted_channel_runs_match_float64(c_in, c_out, groups, stored_channels, device, rng, guarded_outputs):
    x, weight, bias, params = _hinted_problem(c_in, c_out, groups, stored_channels, device, rng)
    geometry = conv_op.ConvGeometry(2, c_in, 7, 6, c_out, 3, 3, (1, 1), (1, 1), (1, 1), groups)
    assert max(conv_op.vector_hints(x, weight, geometry)) > 1  # the case is hinted
    y = tilelab.conv2d_bn_silu(x, weight, bias, **params, padding=1, groups=groups, precision="ieee")
    if stored_channels == c_in:  # x channels-last, so y too: its stores are hinted as well
        assert conv_op.output_hint(y, geometry) > 1
    assert_matches(y, x, weight, bias, params, precision="ieee", padding=1, groups=groups)
    check_guards(guarded_outputs)


# Depthwise layers whose channels are a multiple of 2, 4 or 8 but not of 16: the direct kernel's CHANNEL_ALIGN
# (`direct_hint`). (channels, x's stored channels).
DEPTHWISE_HINTED = [(24, 24), (72, 72), (36, 36), (6, 6), (24, 40), (20, 36)]


@pytest.mark.parametrize("channels,stored_channels", DEPTHWISE_HINTED, ids=lambda v: str(v))
def test_hinted_depthwise_layers_match_float64(channels, stored_channels, device, rng, guarded_outputs):
    x, weight, bias, params = _hinted_problem(channels, channels, channels, stored_channels, device, rng)
    geometry = conv_op.ConvGeometry(2, channels, 7, 6, channels, 3, 3, (1, 1), (1, 1), (1, 1), channels)
    y = tilelab.conv2d_bn_silu(x, weight, bias, **params, padding=1, groups=channels, precision="ieee")
    assert conv_op.uses_direct_kernel(geometry)
    # x channels-last, so y too: hinted. A channel slice of x makes y NCHW (torch's rule), whose channels are apart.
    assert (conv_op.direct_hint(x, y, geometry) > 1) == (stored_channels == channels)
    assert_matches(y, x, weight, bias, params, precision="ieee", padding=1, groups=channels)
    check_guards(guarded_outputs)


def test_a_direct_hint_that_lies_changes_the_result(device, rng, monkeypatch):
    """A CHANNEL_ALIGN of 16 for 24 depthwise channels computes only 16 of them."""
    x, weight, bias, params = _hinted_problem(24, 24, 24, 24, device, rng)
    monkeypatch.setattr(conv_op, "_REPLAYS", {})
    monkeypatch.setattr(conv_op, "direct_hint", lambda *args: 16)
    y = tilelab.conv2d_bn_silu(x, weight, bias, **params, padding=1, groups=24, precision="ieee")
    ref = conv2d_bn_silu_reference(x, weight, bias, **params, padding=1, groups=24)
    assert not relative_error(y, ref) <= 1e-2


@pytest.mark.parametrize("lie", ["inputs", "outputs"])
def test_a_hint_that_lies_changes_the_result(lie, device, rng, monkeypatch):
    """The kernel really rounds by the hints (on the interpreter too): a hint of 16 for 24 channels reads, or
    stores, only 16 of them, so the tests above would catch a launcher that claimed too much."""
    x, weight, bias, params = _hinted_problem(24, 24, 1, 24, device, rng)
    # On a GPU a launch recorded by an earlier test of this layer (honest hints) would serve the call.
    monkeypatch.setattr(conv_op, "_REPLAYS", {})
    if lie == "inputs":
        monkeypatch.setattr(conv_op, "vector_hints", lambda *args: (16, 16))
    else:
        monkeypatch.setattr(conv_op, "output_hint", lambda *args: 16)
    y = tilelab.conv2d_bn_silu(x, weight, bias, **params, padding=1, precision="ieee")
    ref = conv2d_bn_silu_reference(x, weight, bias, **params, padding=1)
    assert not relative_error(y, ref) <= 1e-2  # NaN (never stored) or wrong


@pytest.mark.parametrize("affine,conv_bias", [(False, True), (True, False), (False, False)])
def test_optional_parameters(affine, conv_bias, device, rng, guarded_outputs):
    x, weight, bias, params = make_problem(2, 6, 7, 7, 10, 3, torch.float32, device, rng, affine=affine,
                                           conv_bias=conv_bias)
    y = tilelab.conv2d_bn_silu(x, weight, bias, **params, padding="same", eps=1e-3, precision="ieee")
    assert_matches(y, x, weight, bias, params, precision="ieee", padding="same", eps=1e-3)


def test_without_silu_is_conv_and_batch_norm(device, rng, guarded_outputs):
    x, weight, bias, params = make_problem(2, 6, 7, 7, 10, 3, torch.float32, device, rng)
    y = tilelab.conv2d_bn_silu(x, weight, bias, **params, padding=1, precision="ieee", silu=False)
    assert_matches(y, x, weight, bias, params, precision="ieee", padding=1, silu=False)
    assert (y < 0).any(), "SiLU alone would keep every value above -0.28"


# "interpreter" is 64 channels wide: 40 output channels leave 24 of its columns masked.
@pytest.mark.parametrize("config", ["seed", "interpreter", tilelab.Config(16, 16, 16, 1, num_warps=1, num_stages=1)],
                         ids=["seed", "halves", "explicit"])
def test_named_and_explicit_configs(config, device, rng, guarded_outputs):
    x, weight, bias, params = make_problem(2, 20, 6, 6, 40, 3, torch.float16, device, rng)
    y = tilelab.conv2d_bn_silu(x, weight, bias, **params, padding=1, config=config)
    assert_matches(y, x, weight, bias, params, padding=1)
    check_guards(guarded_outputs)


def test_padding_valid_and_same(device, rng):
    x, weight, bias, params = make_problem(1, 4, 9, 9, 8, 5, torch.float32, device, rng)
    same = tilelab.conv2d_bn_silu(x, weight, bias, **params, padding="same", dilation=2, precision="ieee")
    assert same.shape[-2:] == x.shape[-2:]
    assert_matches(same, x, weight, bias, params, precision="ieee", padding="same", dilation=2)
    valid = tilelab.conv2d_bn_silu(x, weight, bias, **params, padding="valid", precision="ieee")
    assert valid.shape[-2:] == (5, 5)


def test_empty_batch_and_no_input_channels(device, rng):
    x, weight, bias, params = make_problem(0, 4, 5, 5, 6, 3, torch.float16, device, rng)
    assert tilelab.conv2d_bn_silu(x, weight, bias, **params).shape == (0, 6, 3, 3)
    x, weight, bias, params = make_problem(2, 4, 5, 5, 0, 3, torch.float16, device, rng)
    assert tilelab.conv2d_bn_silu(x, weight, bias, **params).shape == (2, 0, 3, 3)
    # No input channels: the convolution is 0 everywhere (an empty sum), so each channel is SiLU(its shift).
    # (torch's own conv2d returns no output channels at all here, so the expectation is written out.)
    x, weight, bias, params = make_problem(2, 0, 5, 5, 3, 3, torch.float32, device, rng)
    y = tilelab.conv2d_bn_silu(x, weight, bias, **params, precision="ieee")
    p = {k: v.double().cpu() for k, v in params.items()}
    scale = p["bn_weight"] / (p["running_var"] + 1e-5).sqrt()
    shift = p["bn_bias"] + (bias.double().cpu() - p["running_mean"]) * scale
    expected = torch.nn.functional.silu(shift).view(1, 3, 1, 1).expand(2, 3, 3, 3)
    torch.testing.assert_close(y.cpu().double(), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", [torch.float16, torch.float64], ids=str)
def test_per_channel_parameters_in_any_float_dtype_and_strided(dtype, device, rng, guarded_outputs):
    """A model cast with .half() keeps its batch norm in float16; a view may select every other channel."""
    x, weight, bias, params = make_problem(2, 6, 7, 7, 10, 3, torch.float16, device, rng)
    params = {k: v.to(dtype) for k, v in params.items()}
    params["bn_weight"] = randn((20,), dtype, device, rng)[::2]  # strided: copied before the launch
    y = tilelab.conv2d_bn_silu(x, weight, bias.to(dtype), **params, padding=1)
    assert_matches(y, x, weight, bias, params, padding=1)
    check_guards(guarded_outputs)


def test_describe_plan_names_the_implicit_gemm(device, rng):
    x, weight, bias, params = make_problem(2, 6, 7, 9, 10, 3, torch.float16, device, rng)
    plan = conv_op.describe_plan(x, weight, bias, **params, stride=2, padding=1)
    assert plan["gemm"] == {"M": 2 * 4 * 5, "N": 10, "K": 9 * 6}
    assert plan["x_layout"] == "nchw" and set(plan["config"]) >= {"block_m", "block_n", "block_k"}


# -- errors ------------------------------------------------------------------------------------------------


def _error_cases(device):
    f16 = {"dtype": torch.float16, "device": device}
    x = torch.randn(1, 4, 6, 6, **f16)
    w = torch.randn(8, 4, 3, 3, **f16)
    bn = {"running_mean": torch.zeros(8, device=device), "running_var": torch.ones(8, device=device)}
    return [
        ("x must be a torch.Tensor", tilelab.InputTypeError, (x.tolist(), w), bn),
        ("x must be 4-D", tilelab.ShapeError, (x[0], w), bn),
        ("weight must be 4-D", tilelab.ShapeError, (x, w[0]), bn),
        ("weight has 2 input channels per group, expected C_in / groups = 4 / 1 = 4", tilelab.ShapeError,
         (x, w[:, :2]), bn),
        ("x has dtype int32", tilelab.DTypeError, (x.to(torch.int32), w), bn),
        ("operands must share one dtype", tilelab.DTypeError, (x, w.float()), bn),
        ("x has dtype float64", tilelab.DTypeError, (x.double(), w.double()), bn),
        ("bias must have shape \\(8,\\)", tilelab.ShapeError, (x, w, torch.zeros(7, device=device)), bn),
        ("running_mean must be a torch.Tensor", tilelab.InputTypeError, (x, w), {**bn, "running_mean": None}),
        ("running_var must have shape", tilelab.ShapeError, (x, w), {**bn, "running_var": torch.ones(8, 1)}),
        ("bn_weight must be a floating-point", tilelab.DTypeError, (x, w),
         {**bn, "bn_weight": torch.ones(8, dtype=torch.int64, device=device)}),
        ("eps must be a finite number", tilelab.ContractError, (x, w), {**bn, "eps": -1.0}),
        ("stride must be >= 1", tilelab.ContractError, (x, w), {**bn, "stride": 0}),
        ("stride must be an int or a pair", tilelab.InputTypeError, (x, w), {**bn, "stride": 1.5}),
        ("dilation must be an int or a pair", tilelab.InputTypeError, (x, w), {**bn, "dilation": (1, 2, 3)}),
        ("padding must be >= 0", tilelab.ContractError, (x, w), {**bn, "padding": -1}),
        ("padding must be an int, a pair", tilelab.ContractError, (x, w), {**bn, "padding": "full"}),
        ("padding='same' needs stride 1", tilelab.ContractError, (x, w), {**bn, "padding": "same", "stride": 2}),
        ("even filter extent", tilelab.ContractError, (x, torch.randn(8, 4, 2, 2, **f16)),
         {**bn, "padding": "same"}),
        ("does not fit", tilelab.ShapeError, (x, torch.randn(8, 4, 7, 7, **f16)), bn),
        ("filter must be at least 1x1", tilelab.ShapeError, (x, torch.randn(8, 4, 0, 3, **f16)), bn),
        ("precision='tf32' applies to float32", tilelab.ContractError, (x, w), {**bn, "precision": "tf32"}),
        ("precision must be one of", tilelab.ContractError, (x.float(), w.float()), {**bn, "precision": "fast"}),
        ("config must be one of", tilelab.ContractError, (x, w), {**bn, "config": "huge"}),
        ("config must be None, a name", tilelab.InputTypeError, (x, w), {**bn, "config": 32}),
        ("config.block_n must be a power of two", tilelab.ContractError, (x, w),
         {**bn, "config": tilelab.Config(32, 48, 32)}),
        # groups
        ("groups must be an int; got float", tilelab.InputTypeError, (x, w[:, :2]), {**bn, "groups": 2.0}),
        ("groups must be an int; got bool", tilelab.InputTypeError, (x, w), {**bn, "groups": True}),
        ("groups must be an int at least 1; got 0", tilelab.ContractError, (x, w), {**bn, "groups": 0}),
        ("groups must be an int at least 1; got -2", tilelab.ContractError, (x, w), {**bn, "groups": -2}),
        ("x's C_in = 4 is not divisible by groups = 3", tilelab.ShapeError, (x, w[:, :1]), {**bn, "groups": 3}),
        ("weight's C_out = 6 is not divisible by groups = 4", tilelab.ShapeError, (x, w[:6, :1]), {**bn, "groups": 4}),
        ("weight has 4 input channels per group, expected C_in / groups = 4 / 2 = 2", tilelab.ShapeError, (x, w),
         {**bn, "groups": 2}),
        # The direct kernel (depthwise here) keeps its sums in registers: 128 x 128 in 4 warps is 128 a thread.
        ("the direct kernel .* 128 per thread with 4 warps; at most 64", tilelab.ContractError, (x, w[:, :1]),
         {**bn, "groups": 4, "config": tilelab.Config(128, 128, 16, num_warps=4)}),
    ]


@pytest.mark.parametrize("case", range(34))
def test_bad_arguments_get_typed_errors(case, device):
    match, error, args, kwargs = _error_cases(device)[case]
    with pytest.raises(error, match=match):
        tilelab.conv2d_bn_silu(*args, **kwargs)


def test_error_case_count_matches():
    assert len(_error_cases("cpu")) == 34


# -- autograd ----------------------------------------------------------------------------------------------


# (C_in, C_out, groups): dense; depthwise and a grouped 2-in-4-out on the direct kernel; 16 per group on the GEMM.
GRADIENT_CHANNELS = [(5, 8, 1), (6, 6, 6), (4, 8, 2), (32, 32, 2)]


@pytest.mark.parametrize("c_in,c_out,groups", GRADIENT_CHANNELS,
                         ids=["dense", "depthwise", "grouped-direct", "grouped-gemm"])
def test_gradients_match_float64(c_in, c_out, groups, device, rng):
    x, weight, bias, params = make_problem(2, c_in, 6, 7, c_out, 3, torch.float32, device, rng, groups=groups)
    leaves = [t.requires_grad_() for t in (x, weight, bias, params["bn_weight"], params["bn_bias"])]
    y = tilelab.conv2d_bn_silu(x, weight, bias, **params, stride=(1, 2), padding=1, groups=groups,
                               precision="ieee")
    grad = randn(tuple(y.shape), torch.float32, device, rng)
    y.backward(grad)
    copies = [t.detach().cpu().double().requires_grad_() for t in leaves]
    stats = [params[k].detach().cpu().double() for k in ("running_mean", "running_var")]
    functional = torch.nn.functional
    z = functional.conv2d(copies[0], copies[1], copies[2], stride=(1, 2), padding=1, groups=groups)
    ref = functional.silu(functional.batch_norm(z, *stats, copies[3], copies[4], training=False, eps=1e-5))
    ref.backward(grad.double().cpu())
    for got, want, name in zip(leaves, copies, ("x", "weight", "bias", "bn_weight", "bn_bias"), strict=True):
        assert relative_error(got.grad, want.grad) < 1e-5, name
    assert params["running_mean"].grad is None


def test_gradients_of_a_float16_block_with_float32_batch_norm(device, rng):
    """A half model whose batch norm stayed float32: each gradient in its own tensor's dtype, near float64."""
    x, weight, bias, params = make_problem(2, 4, 6, 6, 8, 3, torch.float16, device, rng)
    leaves = [t.requires_grad_() for t in (x, weight, bias, params["bn_weight"])]
    y = tilelab.conv2d_bn_silu(x, weight, bias, **params, padding=1)
    grad = randn(tuple(y.shape), torch.float16, device, rng)
    y.backward(grad)
    copies = [t.detach().cpu().double().requires_grad_() for t in leaves]
    stats = [params[k].detach().cpu().double() for k in ("running_mean", "running_var")]
    z = torch.nn.functional.conv2d(copies[0], copies[1], copies[2], padding=1)
    ref = torch.nn.functional.silu(torch.nn.functional.batch_norm(z, *stats, copies[3],
                                                                  params["bn_bias"].double().cpu(), training=False))
    ref.backward(grad.double().cpu())
    for got, want, name in zip(leaves, copies, ("x", "weight", "bias", "bn_weight"), strict=True):
        assert got.grad.dtype == got.dtype, name
        assert relative_error(got.grad, want.grad) < tolerance(torch.float16), name


def test_gradient_of_x_alone(device, rng):
    x, weight, bias, params = make_problem(1, 3, 5, 5, 4, 3, torch.float32, device, rng)
    x.requires_grad_()
    y = tilelab.conv2d_bn_silu(x, weight, bias, **params, padding=1, precision="ieee")
    y.sum().backward()
    assert x.grad.shape == x.shape and weight.grad is None


def test_explicit_config_objects_are_refused_with_grad(device, rng):
    x, weight, bias, params = make_problem(1, 3, 5, 5, 4, 3, torch.float32, device, rng)
    with pytest.raises(tilelab.ContractError, match="config must be a name"):
        tilelab.conv2d_bn_silu(x.requires_grad_(), weight, bias, **params, config=tilelab.Config(16, 16, 16))


@pytest.mark.parametrize("c_in,c_out,groups", [(3, 4, 1), (4, 8, 4)], ids=["dense", "multiplier-2"])
def test_custom_op_passes_opcheck(c_in, c_out, groups, device, rng):
    import tilelab.library  # noqa: F401

    x, weight, bias, params = make_problem(1, c_in, 5, 5, c_out, 3, torch.float32, device, rng, groups=groups)
    x.requires_grad_()
    weight.requires_grad_()
    args = (x, weight, bias, params["running_mean"], params["running_var"], params["bn_weight"], params["bn_bias"],
            1e-5, [1, 1], [1, 1], [1, 1], "ieee", None, True) + ((groups,) if groups != 1 else ())
    torch.library.opcheck(torch.ops.tilelab.conv2d_bn_silu.default, args)
