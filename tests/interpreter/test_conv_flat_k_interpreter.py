"""conv2d_bn_silu's flat K steps (`ConvConfig.flat_k`): the implicit GEMM's K run as one range over filter taps and
input channels (on the interpreter without a GPU, else on it), against float64."""

import pytest
import torch

import tilelab
from tests.interpreter.test_conv_interpreter import (
    LAYOUTS,
    _hinted_problem,
    _ids,
    _with_groups,
    assert_matches,
    check_guards,
    guarded_outputs,  # noqa: F401  (a fixture)
    make_problem,
    stored,
)
from tilelab.ops import conv as conv_op

# batch, c_in, h, w, c_out, kernel, stride, padding, dilation(, groups)
FLAT_GEOMETRIES = [
    (2, 3, 10, 9, 12, 3, 2, 1, 1),  # a 3-channel stem at stride 2: K = 27, one step of 32
    (1, 33, 7, 5, 9, 3, 1, 1, 1),  # ragged: K = 297, steps that end inside a tap's channels
    (1, 17, 9, 8, 10, 3, 1, 2, 2),  # dilated: taps 2 pixels apart, padding 2
    (1, 6, 8, 7, 5, 5, 1, 2, 1),  # 5x5: K = 150, steps that cross filter rows
    (2, 48, 6, 7, 12, 3, 1, 1, 1, 2),  # 24 per group: one implicit GEMM per group
    (1, 20, 6, 5, 12, 3, 1, 1, 1, 2),  # 10 per group: both groups in one bundle (block-diagonal weights)
    (2, 40, 5, 6, 8, 1, 1, 0, 1),  # 1x1: flat K is the plain channel range
]


def _flat(block_k: int = 32, split_k: int = 1) -> conv_op.ConvConfig:
    return conv_op.ConvConfig(32, 32, block_k, 8, num_warps=4, num_stages=1, split_k=split_k, flat_k=True)


@pytest.mark.parametrize("geometry", FLAT_GEOMETRIES, ids=[_ids(g) for g in FLAT_GEOMETRIES])
@pytest.mark.parametrize("dtype,precision", [(torch.float32, "ieee"), (torch.float16, None)])
def test_flat_k_matches_float64(geometry, dtype, precision, device, rng, guarded_outputs):  # noqa: F811
    batch, c_in, h, w, c_out, kernel, stride, padding, dilation, groups = _with_groups(geometry)
    x, weight, bias, params = make_problem(batch, c_in, h, w, c_out, kernel, dtype, device, rng, groups=groups)
    x = x.to(memory_format=torch.channels_last)
    conv = {"stride": stride, "padding": padding, "dilation": dilation, "groups": groups}
    y = tilelab.conv2d_bn_silu(x, weight, bias, **params, precision=precision, config=_flat(), **conv)
    assert_matches(y, x, weight, bias, params, precision=precision, label=_ids(geometry), **conv)
    check_guards(guarded_outputs)


@pytest.mark.parametrize("block_k,split_k", [(16, 1), (64, 1), (16, 3)], ids=["k16", "k64", "k16-split3"])
def test_flat_k_steps_of_any_length_and_split(block_k, split_k, device, rng, guarded_outputs):  # noqa: F811
    """K = 9 x 33 = 297 in steps of 16 (19 of them, the last 9 terms long) or of 64 (5), and 19 steps cut into 3
    slices."""
    x, weight, bias, params = make_problem(2, 33, 6, 7, 20, 3, torch.float32, device, rng)
    y = tilelab.conv2d_bn_silu(x, weight, bias, **params, padding=1, precision="ieee",
                               config=_flat(block_k, split_k))
    assert_matches(y, x, weight, bias, params, precision="ieee", padding=1, label=f"{block_k} {split_k}")
    check_guards(guarded_outputs)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_flat_k_reads_any_strides(layout, device, rng, guarded_outputs):  # noqa: F811
    x, weight, bias, params = make_problem(2, 12, 10, 9, 24, 3, torch.float16, device, rng)
    x, weight = stored(x, weight, layout)
    y = tilelab.conv2d_bn_silu(x, weight, bias, **params, padding=1, config=_flat())
    assert_matches(y, x, weight, bias, params, padding=1, label=layout)
    check_guards(guarded_outputs)


def test_flat_k_with_hinted_channel_runs(device, rng, guarded_outputs):  # noqa: F811
    """24 channels of x stored in rows of 40: the launcher's hints (multiples of 8) hold for flat steps too."""
    x, weight, bias, params = _hinted_problem(24, 16, 1, 40, device, rng)
    y = tilelab.conv2d_bn_silu(x, weight, bias, **params, padding=1, precision="ieee", config=_flat())
    assert_matches(y, x, weight, bias, params, precision="ieee", padding=1)
    check_guards(guarded_outputs)


@pytest.mark.parametrize("flat_k", [True, False], ids=["flat", "tap"])
def test_64_bit_offsets_match_float64(flat_k, device, rng, monkeypatch, guarded_outputs):  # noqa: F811
    """The kernel as a tensor past 2**31 elements compiles it (OFFSETS_64: int64 indices, pixels divided, bounds
    tested on 64-bit values), forced on a small ragged layer so it can be checked."""
    monkeypatch.setattr(conv_op, "_needs_64bit_offsets", lambda *args: True)
    conv_op._REPLAYS.clear()  # a launch recorded without the flag must not serve the call
    x, weight, bias, params = make_problem(2, 33, 6, 7, 20, 3, torch.float32, device, rng)
    config = _flat() if flat_k else conv_op.ConvConfig(32, 32, 32, 8, num_warps=4, num_stages=1)
    y = tilelab.conv2d_bn_silu(x, weight, bias, **params, padding=1, precision="ieee", config=config)
    assert_matches(y, x, weight, bias, params, precision="ieee", padding=1, label=config.label())
    check_guards(guarded_outputs)
    conv_op._REPLAYS.clear()


def test_describe_plan_reports_flat_k(device, rng):
    x, weight, bias, params = make_problem(1, 3, 5, 5, 16, 3, torch.float16, device, rng)
    plan = conv_op.describe_plan(x, weight, bias, **params, padding=1, config=_flat())
    assert plan["path"] == "implicit_gemm" and plan["config"]["flat_k"] is True


@pytest.mark.parametrize("flat_k", [1, "yes", None])
def test_a_flat_k_that_is_not_a_bool_is_refused(flat_k, device, rng):
    x, weight, bias, params = make_problem(1, 3, 5, 5, 16, 3, torch.float16, device, rng)
    config = conv_op.ConvConfig(32, 32, 32, 8, num_warps=4, num_stages=1, flat_k=flat_k)
    with pytest.raises(tilelab.ContractError, match="config.flat_k must be True or False; got"):
        tilelab.conv2d_bn_silu(x, weight, bias, **params, padding=1, config=config)


def test_the_direct_kernel_has_no_k_steps_to_lay_out(device, rng):
    x, weight, bias, params = make_problem(1, 8, 5, 5, 8, 3, torch.float16, device, rng, groups=8)
    config = conv_op.ConvConfig(32, 32, 16, 1, num_warps=4, num_stages=1, flat_k=True)
    with pytest.raises(tilelab.ContractError, match="config.flat_k=True: the direct kernel .* use flat_k=False"):
        tilelab.conv2d_bn_silu(x, weight, bias, **params, padding=1, groups=8, config=config)
