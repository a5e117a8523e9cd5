"""conv2d_bn_silu's tap steps with each pixel's image, row and column found by multiplication
(`ConvConfig.windows_by_multiplication`, labels ending `-mul`), on the interpreter without a GPU, else on it,
against float64. The multiplication is exact for indices under 2**31 (`ops.conv.division_magic`); these layers
put pixels on every remainder: odd widths, heights of one, strides and dilations, a batch of several images."""

import pytest
import torch

import tilelab
from tests.interpreter.test_conv_interpreter import (
    _ids,
    _with_groups,
    assert_matches,
    check_guards,
    guarded_outputs,  # noqa: F401  (a fixture)
    make_problem,
)
from tilelab.ops import conv as conv_op

# batch, c_in, h, w, c_out, kernel, stride, padding, dilation(, groups)
GEOMETRIES = [
    (3, 16, 7, 9, 20, 3, 1, 1, 1),  # 189 pixels: tiles end inside an image and inside a row
    (2, 17, 11, 5, 9, 3, 2, 1, 1),  # stride 2: OH 6, OW 3
    (2, 16, 9, 8, 10, 3, 1, 2, 2),  # dilated: taps 2 pixels apart
    (5, 32, 1, 13, 8, 3, 1, 1, 1),  # rows of one pixel: OH 1
    (2, 40, 5, 6, 24, 1, 1, 0, 1),  # 1x1
    (2, 64, 6, 7, 64, 3, 1, 1, 1, 32),  # 2 channels per group: a bundle, block-diagonal weights
]


def _multiplying(block_k: int = 16) -> conv_op.ConvConfig:
    return conv_op.ConvConfig(32, 32, block_k, 8, num_warps=4, num_stages=1, windows_by_multiplication=True)


@pytest.mark.parametrize("geometry", GEOMETRIES, ids=[_ids(g) for g in GEOMETRIES])
@pytest.mark.parametrize("dtype,precision", [(torch.float32, "ieee"), (torch.float16, None)])
def test_tap_steps_with_pixels_divided_by_multiplication_match_float64(geometry, dtype, precision, device, rng,
                                                                      guarded_outputs):  # noqa: F811
    batch, c_in, h, w, c_out, kernel, stride, padding, dilation, groups = _with_groups(geometry)
    x, weight, bias, params = make_problem(batch, c_in, h, w, c_out, kernel, dtype, device, rng, groups=groups)
    x = x.to(memory_format=torch.channels_last)
    conv = {"stride": stride, "padding": padding, "dilation": dilation, "groups": groups}
    y = tilelab.conv2d_bn_silu(x, weight, bias, **params, precision=precision, config=_multiplying(), **conv)
    assert_matches(y, x, weight, bias, params, precision=precision, label=_ids(geometry), **conv)
    check_guards(guarded_outputs)


def test_split_tap_steps_by_multiplication(device, rng, guarded_outputs):  # noqa: F811
    """A split-K tile that multiplies: 9 taps x 2 steps in 3 slices."""
    x, weight, bias, params = make_problem(2, 32, 6, 7, 20, 3, torch.float32, device, rng)
    config = conv_op.ConvConfig(32, 32, 16, 8, num_warps=4, num_stages=1, split_k=3, windows_by_multiplication=True)
    y = tilelab.conv2d_bn_silu(x, weight, bias, **params, padding=1, precision="ieee", config=config)
    assert_matches(y, x, weight, bias, params, precision="ieee", padding=1, label=config.label())
    check_guards(guarded_outputs)


def test_64_bit_offsets_divide_even_when_the_config_multiplies(device, rng, monkeypatch,
                                                               guarded_outputs):  # noqa: F811
    """Past 2**31 elements the pixels may pass 2**31 too, where the multiplication is not exact: OFFSETS_64 divides
    whatever the config says (forced here on a small layer so it can be checked)."""
    monkeypatch.setattr(conv_op, "_needs_64bit_offsets", lambda *args: True)
    conv_op._REPLAYS.clear()  # a launch recorded without the flag must not serve the call
    x, weight, bias, params = make_problem(3, 16, 7, 9, 20, 3, torch.float32, device, rng)
    y = tilelab.conv2d_bn_silu(x, weight, bias, **params, padding=1, precision="ieee", config=_multiplying())
    assert_matches(y, x, weight, bias, params, precision="ieee", padding=1)
    check_guards(guarded_outputs)
    conv_op._REPLAYS.clear()


def test_describe_plan_reports_the_multiplication(device, rng):
    x, weight, bias, params = make_problem(1, 16, 5, 5, 16, 3, torch.float16, device, rng)
    plan = conv_op.describe_plan(x, weight, bias, **params, padding=1, config=_multiplying())
    assert plan["config"]["windows_by_multiplication"] is True and plan["config"]["flat_k"] is False


@pytest.mark.parametrize("value", [1, "yes", None])
def test_a_windows_by_multiplication_that_is_not_a_bool_is_refused(value, device, rng):
    x, weight, bias, params = make_problem(1, 16, 5, 5, 16, 3, torch.float16, device, rng)
    config = conv_op.ConvConfig(32, 32, 16, 8, num_warps=4, num_stages=1, windows_by_multiplication=value)
    with pytest.raises(tilelab.ContractError, match="config.windows_by_multiplication must be True or False; got"):
        tilelab.conv2d_bn_silu(x, weight, bias, **params, padding=1, config=config)
