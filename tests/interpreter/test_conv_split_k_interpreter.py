"""conv2d_bn_silu's split-K: each tile's K steps in slices, summed by the last slice to finish (on the interpreter
without a GPU, else on it), against float64."""

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
    stored,
)
from tilelab.ops import conv as conv_op
from tilelab.ops import matmul_hopper

# batch, c_in, h, w, c_out, kernel, stride, padding, dilation(, groups)
SPLIT_GEOMETRIES = [
    (2, 40, 6, 6, 70, 3, 1, 1, 1),  # 9 taps x 3 channel runs: 27 K steps, cut unevenly; ragged N
    (2, 17, 9, 11, 33, 3, 2, 1, 1),  # stride 2, one ragged channel run per tap
    (1, 5, 7, 7, 9, 1, 1, 0, 1),  # 1x1 with one K step: every slice after the first is empty
    (1, 8, 6, 7, 8, 3, 1, 1, 1, 4),  # 4 groups of 2 channels in one bundle (block-diagonal weights)
    (1, 32, 5, 5, 48, 3, 1, 1, 1, 2),  # 16 per group: one implicit GEMM per group, two bundles of counters
]


def _tile(split_k: int) -> conv_op.ConvConfig:
    return conv_op.ConvConfig(32, 32, 16, 8, num_warps=4, num_stages=1, split_k=split_k)


@pytest.mark.parametrize("geometry", SPLIT_GEOMETRIES, ids=[_ids(g) for g in SPLIT_GEOMETRIES])
@pytest.mark.parametrize("split_k", [2, 3, 5])
@pytest.mark.parametrize("dtype,precision", [(torch.float32, "ieee"), (torch.float16, None)])
def test_split_k_matches_float64(geometry, split_k, dtype, precision, device, rng, guarded_outputs):  # noqa: F811
    batch, c_in, h, w, c_out, kernel, stride, padding, dilation, groups = _with_groups(geometry)
    x, weight, bias, params = make_problem(batch, c_in, h, w, c_out, kernel, dtype, device, rng, groups=groups)
    x = x.to(memory_format=torch.channels_last)
    conv = {"stride": stride, "padding": padding, "dilation": dilation, "groups": groups}
    y = tilelab.conv2d_bn_silu(x, weight, bias, **params, precision=precision, config=_tile(split_k), **conv)
    assert_matches(y, x, weight, bias, params, precision=precision, label=f"{_ids(geometry)} split {split_k}", **conv)
    check_guards(guarded_outputs)


def test_the_counters_are_left_at_zero_and_the_sum_is_the_same_bits(device, rng):
    """The last slice resets its tile's counter, so the next launch can count again without clearing; it sums
    the slices in slice order whichever arrives last, so two launches give the same bits."""
    x, weight, bias, params = make_problem(2, 40, 6, 6, 70, 3, torch.float32, device, rng)
    runs = [tilelab.conv2d_bn_silu(x, weight, bias, **params, padding=1, config=_tile(4))
            for _ in range(3)]
    assert all(torch.equal(runs[0], run) for run in runs[1:])
    assert all(int(c.count_nonzero()) == 0 for c in matmul_hopper._SPLIT_K_COUNTERS.values())
    # Split or not, the same convolution (sums in another order: close, not equal).
    whole = tilelab.conv2d_bn_silu(x, weight, bias, **params, padding=1, config=_tile(1))
    torch.testing.assert_close(runs[0], whole, rtol=1e-4, atol=1e-5)


def test_describe_plan_reports_the_slices(device, rng):
    x, weight, bias, params = make_problem(1, 16, 5, 5, 16, 3, torch.float16, device, rng)
    plan = conv_op.describe_plan(x, weight, bias, **params, padding=1, config=_tile(3))
    assert plan["config"]["split_k"] == 3


@pytest.mark.parametrize("split_k", [0, 65, 2.0, True])
def test_a_bad_split_is_refused(split_k, device, rng):
    x, weight, bias, params = make_problem(1, 16, 5, 5, 16, 3, torch.float16, device, rng)
    with pytest.raises(tilelab.ContractError, match="config.split_k must be an int from 1 to 64"):
        tilelab.conv2d_bn_silu(x, weight, bias, **params, padding=1, config=_tile(split_k))


@pytest.mark.parametrize("maxnreg", [24, 256, 100, -8, True, 96.0])
@pytest.mark.parametrize("groups", [1, 8], ids=["implicit-gemm", "direct"])
def test_a_bad_register_cap_is_refused(maxnreg, groups, device, rng):
    x, weight, bias, params = make_problem(1, 8, 5, 5, 8, 3, torch.float16, device, rng, groups=groups)
    config = conv_op.ConvConfig(32, 32, 16, 8, num_warps=4, num_stages=1, maxnreg=maxnreg)
    with pytest.raises(tilelab.ContractError, match="config.maxnreg must be 0 .no cap. or a multiple of 8 from 32 "
                                                    "to 248 registers per thread; got"):
        tilelab.conv2d_bn_silu(x, weight, bias, **params, padding=1, groups=groups, config=config)


def test_the_direct_kernel_has_no_k_loop_to_split(device, rng):
    x, weight, bias, params = make_problem(1, 8, 5, 5, 8, 3, torch.float16, device, rng, groups=8)
    with pytest.raises(tilelab.ContractError, match="the direct kernel .* has no K loop to split"):
        tilelab.conv2d_bn_silu(x, weight, bias, **params, padding=1, groups=8, config=_tile(2))


def test_a_workspace_past_int32_offsets_is_refused(device):
    """64 images of 256x256 pixels x 512 channels, in 2 slices: 2**32 float32 partials. Refused before anything
    is allocated (x is one element, expanded)."""
    x = torch.zeros((1, 1, 1, 1), dtype=torch.float16, device=device).expand(64, 16, 256, 256)
    weight = torch.zeros((512, 16, 1, 1), dtype=torch.float16, device=device)
    stats = {"running_mean": torch.zeros(512, device=device), "running_var": torch.ones(512, device=device)}
    with pytest.raises(tilelab.ShapeError, match="workspace of partial tiles would hold 4294967296 elements"):
        tilelab.conv2d_bn_silu(x, weight, **stats, config=_tile(2))


# -- every layout, and the grid's limits ---------------------------------------------------------------------


@pytest.mark.parametrize("layout", ["channels_last", "sliced", "cropped", "transposed_hw"])
def test_split_k_reads_any_strides(layout, device, rng, guarded_outputs):  # noqa: F811
    x, weight, bias, params = make_problem(2, 40, 6, 7, 24, 3, torch.float16, device, rng)
    x, weight = stored(x, weight, layout)
    y = tilelab.conv2d_bn_silu(x, weight, bias, **params, padding=1, config=_tile(3))
    assert_matches(y, x, weight, bias, params, padding=1, label=layout)
    check_guards(guarded_outputs)


def test_more_bundles_than_the_grid_holds_are_refused(device):
    """65536 groups of 16 channels: one implicit GEMM each along the grid's second axis, one more than CUDA
    allows. Refused before anything is allocated or launched (x and the weight are one element, expanded)."""
    groups, per_group = 65536, 16
    x = torch.zeros((1, 1, 1, 1), dtype=torch.float16, device=device).expand(1, groups * per_group, 1, 1)
    weight = torch.zeros((1, 1, 1, 1), dtype=torch.float16, device=device).expand(groups, per_group, 1, 1)
    stats = {"running_mean": torch.zeros(groups, device=device), "running_var": torch.ones(groups, device=device)}
    with pytest.raises(tilelab.ShapeError, match="65536 bundles of groups along the grid's second axis, at most 65535"):
        tilelab.conv2d_bn_silu(x, weight, **stats, groups=groups)


def test_more_direct_channel_tiles_than_the_grid_holds_are_refused(device):
    channels = 65535 * 16 + 1  # depthwise, in tiles of 16 output channels: 65536 of them
    x = torch.zeros((1, 1, 1, 1), dtype=torch.float16, device=device).expand(1, channels, 1, 1)
    weight = torch.zeros((1, 1, 1, 1), dtype=torch.float16, device=device).expand(channels, 1, 1, 1)
    stats = {"running_mean": torch.zeros(channels, device=device), "running_var": torch.ones(channels, device=device)}
    with pytest.raises(tilelab.ShapeError, match="the direct kernel's 65536 tiles of 16 output channels exceed"):
        tilelab.conv2d_bn_silu(x, weight, **stats, groups=channels, config=conv_op.direct_tile(16, 16, 1))
