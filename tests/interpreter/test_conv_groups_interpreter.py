"""tilelab.conv2d_bn_silu with groups (on the interpreter without a GPU, else on it): which kernel a call takes,
the direct kernel's configs and optional terms, padding and empty batches.

Geometries, layouts, refusals and gradients with groups are in test_conv_interpreter.py, beside the dense ones;
these tests use its problems, float64 comparison and NaN-guarded outputs.
"""

import pytest
import torch

import tilelab
from tests.interpreter import test_conv_interpreter as conv_tests
from tests.interpreter.test_conv_interpreter import assert_matches, check_guards, make_problem
from tilelab.ops import conv as conv_op

guarded_outputs = conv_tests.guarded_outputs  # conv's outputs in NaN guard bands (a fixture)


def plan(x, weight, bias, params, **conv):
    return conv_op.describe_plan(x, weight, bias, **params, **conv)


@pytest.mark.parametrize("c_in,c_out,groups,path", [
    (3, 16, 1, "implicit_gemm"),  # a 3-channel stem: ungrouped stays on the implicit GEMM
    (8, 8, 8, "direct"),  # depthwise
    (8, 16, 8, "direct"),  # depthwise, channel multiplier 2
    (45, 45, 3, "direct"),  # 15 per group, one short of tl.dot's K, in an odd number of groups: no bundle
    (30, 30, 2, "implicit_gemm"),  # 15 per group, the two groups in one tile
    (32, 32, 8, "implicit_gemm"),  # 4 per group, eight to a tile
    (32, 32, 2, "implicit_gemm"),  # 16 per group
])
def test_describe_plan_names_the_path_and_groups(c_in, c_out, groups, path, device, rng):
    x, weight, bias, params = make_problem(1, c_in, 5, 5, c_out, 3, torch.float16, device, rng, groups=groups)
    found = plan(x, weight, bias, params, padding=1, groups=groups)
    assert (found["path"], found["groups"]) == (path, groups)
    # The GEMM sizes are one bundle's: `groups_per_tile` groups (one unless they are small).
    bundle = found["groups_per_tile"]
    assert bundle == {"direct": 1, "implicit_gemm": groups if c_in // groups < 16 else 1}[path]
    assert found["gemm"] == {"M": 25, "N": bundle * c_out // groups, "K": 9 * bundle * c_in // groups}


def test_a_second_identical_call_matches(device, rng, guarded_outputs):
    """On a GPU the second call replays the first's recorded launch, which must read the new tensors."""
    for _ in range(2):
        x, weight, bias, params = make_problem(2, 6, 7, 5, 12, 3, torch.float16, device, rng, groups=6)
        x = x.to(memory_format=torch.channels_last)
        y = tilelab.conv2d_bn_silu(x, weight, bias, **params, padding=1, groups=6)
        assert_matches(y, x, weight, bias, params, padding=1, groups=6)
    check_guards(guarded_outputs)


# "seed" is 32 channels wide and "interpreter" 64; 16 channels in 4 warps is the narrowest tile, whose second
# channel tile starts inside a group of 3 output channels (channel multiplier 3: groups of 3 don't divide 16).
# A register cap (`maxnreg`) is ptxas's: the interpreter ignores it, a GPU spills what no longer fits (the GPU test
# runs every candidate, capped ones included).
@pytest.mark.parametrize("config", ["seed", "interpreter", tilelab.Config(16, 16, 16, 1, num_warps=4, num_stages=1),
                                    conv_op.direct_tile(32, 64, 8), conv_op.direct_tile(64, 32, 2, maxnreg=64)],
                         ids=["seed", "interpreter", "16x16", "8-warps", "capped"])
def test_direct_kernel_configs(config, device, rng, guarded_outputs):
    x, weight, bias, params = make_problem(2, 9, 5, 6, 27, 3, torch.float32, device, rng, groups=9)
    y = tilelab.conv2d_bn_silu(x, weight, bias, **params, padding=1, groups=9, config=config)
    assert_matches(y, x, weight, bias, params, padding=1, groups=9)
    check_guards(guarded_outputs)


# The direct kernel loops over the filter's rows and unrolls each row's taps: filters of one row or one column,
# square ones up to 7x7, dilated, strided; the pixels' image, row and column come from magic-number division
# (`division_magic`), here over images of ragged sizes and several of them per tile.
@pytest.mark.parametrize("kernel,stride,dilation", [((1, 1), 1, 1), ((1, 3), 1, 1), ((3, 1), 2, 1), ((5, 5), 1, 1),
                                                    ((7, 7), 2, 1), ((3, 3), 1, 2)])
def test_filter_rows_and_columns_on_the_direct_kernel(kernel, stride, dilation, device, rng, guarded_outputs):
    x, weight, bias, params = make_problem(3, 24, 9, 7, 24, kernel, torch.float32, device, rng, groups=24)
    conv = {"stride": stride, "padding": (kernel[0] // 2 * dilation, kernel[1] // 2 * dilation),
            "dilation": dilation, "groups": 24}
    config = conv_op.direct_tile(64, 16, 2)
    assert conv_op.describe_plan(x, weight, bias, **params, **conv, config=config)["path"] == "direct"
    y = tilelab.conv2d_bn_silu(x, weight, bias, **params, **conv, config=config)
    assert_matches(y, x, weight, bias, params, **conv)
    check_guards(guarded_outputs)


# Depthwise with a channel multiplier of 2, 4 or 8 loads each tile's input channels as one run and repeats them
# (`direct_multiplier`); a last channel tile that is part padding (9 inputs, 18 outputs on 16-wide tiles), and
# 16- and 32-wide tiles, where one tile holds 2 to 16 input channels.
@pytest.mark.parametrize("c_in,multiplier,block_c", [(9, 2, 16), (9, 2, 32), (5, 4, 16), (3, 8, 32), (6, 8, 16)])
def test_channel_multipliers_load_each_input_channel_once(c_in, multiplier, block_c, device, rng, guarded_outputs):
    c_out = c_in * multiplier
    x, weight, bias, params = make_problem(2, c_in, 6, 7, c_out, 3, torch.float32, device, rng, groups=c_in)
    x = x.to(memory_format=torch.channels_last)
    g = conv_op.ConvGeometry(2, c_in, 6, 7, c_out, 3, 3, (1, 1), (1, 1), (1, 1), c_in)
    assert conv_op.direct_multiplier(g) == multiplier
    config = conv_op.direct_tile(16, block_c, 2)
    y = tilelab.conv2d_bn_silu(x, weight, bias, **params, padding=1, groups=c_in, config=config)
    assert_matches(y, x, weight, bias, params, padding=1, groups=c_in)
    check_guards(guarded_outputs)


@pytest.mark.parametrize("affine,conv_bias", [(False, True), (True, False), (False, False)])
@pytest.mark.parametrize("silu", [True, False])
def test_optional_terms_on_the_direct_kernel(affine, conv_bias, silu, device, rng, guarded_outputs):
    x, weight, bias, params = make_problem(2, 6, 7, 7, 12, 3, torch.float32, device, rng, affine=affine,
                                           conv_bias=conv_bias, groups=3)
    y = tilelab.conv2d_bn_silu(x, weight, bias, **params, padding="same", eps=1e-3, groups=3, silu=silu)
    assert_matches(y, x, weight, bias, params, padding="same", eps=1e-3, groups=3, silu=silu)
    check_guards(guarded_outputs)
    if not silu:
        assert (y < 0).any(), "SiLU alone would keep every value above -0.28"


def test_depthwise_padding_valid_and_same(device, rng):
    x, weight, bias, params = make_problem(1, 4, 9, 9, 4, 5, torch.float32, device, rng, groups=4)
    same = tilelab.conv2d_bn_silu(x, weight, bias, **params, padding="same", dilation=2, groups=4)
    assert same.shape[-2:] == x.shape[-2:]
    assert_matches(same, x, weight, bias, params, padding="same", dilation=2, groups=4)
    valid = tilelab.conv2d_bn_silu(x, weight, bias, **params, padding="valid", groups=4)
    assert valid.shape[-2:] == (5, 5)
    assert_matches(valid, x, weight, bias, params, padding="valid", groups=4)


@pytest.mark.parametrize("c_in,groups", [(6, 6), (32, 2)], ids=["direct", "gemm"])
def test_empty_batch(c_in, groups, device, rng):
    x, weight, bias, params = make_problem(0, c_in, 5, 5, c_in, 3, torch.float16, device, rng, groups=groups)
    x = x.to(memory_format=torch.channels_last)
    y = tilelab.conv2d_bn_silu(x, weight, bias, **params, groups=groups)
    assert y.shape == (0, c_in, 3, 3)


def test_depthwise_float32_is_exact_float32_whatever_the_precision(device, rng):
    """The direct kernel multiplies in float32 FMAs: tf32 asked for, ieee's accuracy given."""
    x, weight, bias, params = make_problem(2, 8, 6, 6, 8, 3, torch.float32, device, rng, groups=8)
    y = tilelab.conv2d_bn_silu(x, weight, bias, **params, padding=1, groups=8, precision="tf32")
    assert_matches(y, x, weight, bias, params, precision="ieee", padding=1, groups=8)


def test_a_large_tile_is_fine_on_the_implicit_gemm(device, rng):
    """The direct kernel's register bound refuses nothing on the implicit GEMM, whose tiles are checked as before."""
    x, weight, bias, params = make_problem(1, 32, 5, 5, 32, 3, torch.float16, device, rng, groups=2)
    found = plan(x, weight, bias, params, padding=1, groups=2, config=tilelab.Config(128, 128, 16, num_warps=4))
    assert found["path"] == "implicit_gemm" and found["config"]["block_n"] == 128
