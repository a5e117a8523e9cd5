"""conv2d_bn_silu on the GPU: every tile the tuner may choose (the implicit GEMM's, grouped or not, flat K steps
included, and the direct kernel's), CUDA graphs, replays, and offsets past 2**31."""

import pytest
import torch

import tilelab
from tests.helpers import randn
from tests.interpreter.test_conv_interpreter import assert_matches, make_problem
from tilelab.bench import op_conv
from tilelab.ops import conv as conv_op
from tilelab.reference import relative_error, tolerance

pytestmark = pytest.mark.gpu


def _all_candidates(element_size: int):
    # Every tile `candidates` can produce for some problem: as listed, and with K steps cut to 16.
    base = conv_op.candidates(conv_op.ConvGeometry(64, 256, 56, 56, 256, 3, 3, (1, 1), (1, 1), (1, 1)),
                              element_size)
    return list(dict.fromkeys(base + conv_op.candidates(
        conv_op.ConvGeometry(64, 16, 56, 56, 256, 3, 3, (1, 1), (1, 1), (1, 1)), element_size)))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32], ids=str)
def test_every_candidate_tile(dtype, rng):
    x, weight, bias, params = make_problem(3, 40, 19, 23, 72, 3, dtype, "cuda", rng)
    x = x.to(memory_format=torch.channels_last)
    for config in _all_candidates(x.element_size()):
        y = tilelab.conv2d_bn_silu(x, weight, bias, **params, padding=1, config=config)
        assert_matches(y, x, weight, bias, params, padding=1, label=config.label())


# batch, C_in, H, W, C_out, kernel, stride, groups: layers whose candidates include flat K steps (`flat_k_fits`).
FLAT_LAYERS = [(3, 3, 40, 37, 32, 3, 2, 1), (3, 33, 19, 23, 65, 3, 1, 1), (2, 48, 13, 11, 40, 3, 1, 2)]


@pytest.mark.parametrize("layer", FLAT_LAYERS, ids=["stem", "ragged", "24-per-group"])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32], ids=str)
def test_every_flat_tile(dtype, layer, rng):
    batch, c_in, h, w, c_out, k, stride, groups = layer
    geometry = conv_op.ConvGeometry(batch, c_in, h, w, c_out, k, k, (stride, stride), (k // 2, k // 2), (1, 1),
                                    groups)
    x, weight, bias, params = make_problem(batch, c_in, h, w, c_out, k, dtype, "cuda", rng, groups=groups)
    x = x.to(memory_format=torch.channels_last)
    weight = weight.to(memory_format=torch.channels_last)
    flat = [c for c in conv_op.candidates(geometry, x.element_size()) if conv_op.flat_k_of(c)]
    assert flat
    conv = {"stride": stride, "padding": k // 2, "groups": groups}
    for config in flat:
        y = tilelab.conv2d_bn_silu(x, weight, bias, **params, config=config, **conv)
        assert_matches(y, x, weight, bias, params, label=config.label(), **conv)


# (C_in, C_out, groups) on the direct kernel: depthwise, a channel multiplier of 2, 3 in and 3 out per group in
# an odd number of groups (an even number would share implicit-GEMM tiles).
DIRECT_CHANNELS = [(72, 72, 72), (36, 72, 36), (63, 63, 21)]


@pytest.mark.parametrize("channels", DIRECT_CHANNELS, ids=["depthwise", "multiplier-2", "3-per-group"])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32], ids=str)
def test_every_direct_candidate_tile(dtype, channels, rng):
    c_in, c_out, groups = channels
    x, weight, bias, params = make_problem(3, c_in, 19, 23, c_out, 3, dtype, "cuda", rng, groups=groups)
    x = x.to(memory_format=torch.channels_last)
    for config in conv_op.DIRECT_CANDIDATES:
        y = tilelab.conv2d_bn_silu(x, weight, bias, **params, padding=1, groups=groups, config=config)
        assert_matches(y, x, weight, bias, params, padding=1, groups=groups, label=config.label())


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
def test_every_implicit_gemm_tile_with_groups(dtype, rng):
    """16 and 20 input channels per group: each group one implicit GEMM, the groups along the grid's second axis;
    4 in and 4 out, and 3 in and 6 out, per group: bundles of 8 and 4 groups, one block-diagonal tile each."""
    for c_in, c_out, groups in ((64, 96, 4), (40, 40, 2), (128, 128, 32), (36, 72, 12)):
        geometry = conv_op.ConvGeometry(2, c_in, 13, 11, c_out, 3, 3, (1, 1), (1, 1), (1, 1), groups)
        assert conv_op.groups_per_tile(geometry) == {4: 1, 2: 1, 32: 8, 12: 4}[groups]
        x, weight, bias, params = make_problem(2, c_in, 13, 11, c_out, 3, dtype, "cuda", rng, groups=groups)
        x = x.to(memory_format=torch.channels_last)
        for config in conv_op.candidates(geometry, x.element_size()):
            y = tilelab.conv2d_bn_silu(x, weight, bias, **params, padding=1, groups=groups, config=config)
            assert_matches(y, x, weight, bias, params, padding=1, groups=groups, label=f"{groups}: {config.label()}")


@pytest.mark.parametrize("shape", [(32, 144, 56, 56, 144, 3, 1, 144), (32, 672, 14, 14, 672, 5, 1, 672),
                                   (32, 64, 56, 56, 128, 3, 1, 64), (32, 128, 56, 56, 128, 3, 1, 32)],
                         ids=["dw-144-56", "dw-672-14-5x5", "multiplier-2", "resnext-4-per-group"])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
def test_grouped_layers_at_full_size(shape, dtype, rng):
    """kernel-bench's layers at batch 32 (tuned on first sight), against float64 computed on the GPU."""
    generator = torch.Generator("cuda").manual_seed(int(rng.initial_seed()))
    inputs = op_conv.make_inputs(shape, dtype, torch.device("cuda"), generator)
    x, weight, bias, mean, var, gamma, beta, stride, groups = inputs
    y = tilelab.conv2d_bn_silu(x, weight, bias, running_mean=mean, running_var=var, bn_weight=gamma, bn_bias=beta,
                               eps=op_conv.EPS, stride=stride, padding=shape[5] // 2, groups=groups)
    assert y.is_contiguous(memory_format=torch.channels_last)
    err = relative_error(y, op_conv.reference(*inputs))
    assert err <= tolerance(dtype), f"{shape}: relative error {err:.2e}"


def test_the_tuned_choice_is_remembered(rng):
    x, weight, bias, params = make_problem(4, 64, 28, 28, 64, 3, torch.float16, "cuda", rng)
    x = x.to(memory_format=torch.channels_last)
    tilelab.conv2d_bn_silu(x, weight, bias, **params, padding=1)
    g = conv_op.ConvGeometry(4, 64, 28, 28, 64, 3, 3, (1, 1), (1, 1), (1, 1))
    from tilelab import tuning

    key = conv_op.tuning_key(x, weight, g, "tf32", True)
    assert tuning.known(key, conv_op.ConvConfig) is not None
    plan = conv_op.describe_plan(x, weight, bias, **params, padding=1)
    assert plan["config"] == tuning.known(key, conv_op.ConvConfig).as_dict()


# (C_in, C_out, groups): dense, depthwise (the direct kernel), 16 per group (the implicit GEMM per group).
REPLAYED_CHANNELS = [(32, 48, 1), (32, 32, 32), (32, 48, 2)]


@pytest.mark.parametrize("c_in,c_out,groups", REPLAYED_CHANNELS, ids=["dense", "depthwise", "gemm-2"])
def test_graph_replay_follows_new_inputs(c_in, c_out, groups, rng):
    x, weight, bias, params = make_problem(2, c_in, 17, 17, c_out, 3, torch.float16, "cuda", rng, groups=groups)
    x = x.to(memory_format=torch.channels_last)

    def run():
        return tilelab.conv2d_bn_silu(x, weight, bias, **params, padding=1, groups=groups)

    run()  # tunes and compiles outside capture
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        y = run()
    for _ in range(2):
        for t in (x, weight):
            t.copy_(randn(tuple(t.shape), t.dtype, "cuda", rng))
        graph.replay()
        torch.cuda.synchronize()
        assert_matches(y, x, weight, bias, params, padding=1, groups=groups, label="graph replay")


def test_offsets_past_int32(rng):
    """2**31 input elements (4 GiB of fp16, channels-last): the last rows' offsets need 64 bits."""
    if torch.cuda.get_device_properties(0).total_memory < 24 * 2**30:
        pytest.skip("needs two 4 GiB tensors and room to spare")
    x = torch.empty((1, 16, 16384, 8192), dtype=torch.float16, device="cuda", memory_format=torch.channels_last)
    x.normal_(generator=torch.Generator("cuda").manual_seed(int(rng.initial_seed())))
    _, weight, bias, params = make_problem(1, 16, 1, 1, 16, 1, torch.float16, "cuda", rng)
    y = tilelab.conv2d_bn_silu(x, weight, bias, **params)
    # A 1x1 convolution maps each pixel alone: the last two rows are checked against their own reference.
    tail = x[:, :, -2:, :]
    assert_matches(y[:, :, -2:, :], tail, weight, bias, params, label="last rows")
    head = x[:, :, :2, :]
    assert_matches(y[:, :, :2, :], head, weight, bias, params, label="first rows")


def test_torch_compile_traces_the_custom_op(rng):
    import tilelab.library  # noqa: F401

    x, weight, bias, params = make_problem(2, 8, 9, 9, 16, 3, torch.float16, "cuda", rng)
    depthwise = make_problem(2, 8, 9, 9, 8, 3, torch.float16, "cuda", rng, groups=8)[1]

    @torch.compile(fullgraph=True)
    def block(x):
        return torch.ops.tilelab.conv2d_bn_silu(x, weight, bias, params["running_mean"], params["running_var"],
                                                params["bn_weight"], params["bn_bias"], 1e-5, [1, 1], [1, 1], [1, 1])

    @torch.compile(fullgraph=True)
    def depthwise_block(x):
        return torch.ops.tilelab.conv2d_bn_silu(x, depthwise, None, params["running_mean"][:8],
                                                params["running_var"][:8], None, None, 1e-5, [1, 1], [1, 1], [1, 1],
                                                groups=8)

    assert_matches(block(x), x, weight, bias, params, padding=1, label="torch.compile")
    no_affine = {"running_mean": params["running_mean"][:8], "running_var": params["running_var"][:8]}
    assert_matches(depthwise_block(x), x, depthwise, None, no_affine, padding=1, groups=8, label="depthwise")


@pytest.mark.parametrize("channels_last", [True, False], ids=["channels_last", "nchw"])
@pytest.mark.parametrize("affine", [True, False], ids=["affine", "no_affine"])
@pytest.mark.parametrize("c_in,c_out,groups", [(24, 40, 1), (24, 48, 24), (32, 48, 2)],
                         ids=["dense", "multiplier-2", "gemm-2"])
def test_replays_serve_later_calls_with_new_tensors(channels_last, affine, c_in, c_out, groups, rng):
    """The second call with the same signature replays the first's launch; it must read the new tensors."""
    conv_op._REPLAYS.clear()
    for call in range(3):
        x, weight, bias, params = make_problem(2, c_in, 13, 11, c_out, 3, torch.float16, "cuda", rng, affine=affine,
                                               conv_bias=affine, groups=groups)
        if channels_last:
            x = x.to(memory_format=torch.channels_last)
        y = tilelab.conv2d_bn_silu(x, weight, bias, **params, stride=2, padding=1, groups=groups)
        assert len(conv_op._REPLAYS) == 1, "one signature, one recorded launch"
        assert_matches(y, x, weight, bias, params, stride=2, padding=1, groups=groups, label=f"call {call}")
        assert y.is_contiguous(memory_format=torch.channels_last) == channels_last


def test_a_grouped_call_never_replays_a_dense_launch(rng):
    """Same shapes but for the weight's channels and groups: two signatures, two recorded launches."""
    conv_op._REPLAYS.clear()
    for groups in (1, 2):
        x, weight, bias, params = make_problem(2, 32, 9, 9, 32, 3, torch.float16, "cuda", rng, groups=groups)
        y = tilelab.conv2d_bn_silu(x, weight, bias, **params, padding=1, groups=groups)
        assert_matches(y, x, weight, bias, params, padding=1, groups=groups, label=f"groups {groups}")
    assert len(conv_op._REPLAYS) == 2


def test_direct_offsets_past_int32(rng):
    """2**31 input elements (4 GiB of fp16, channels-last), depthwise 1x1: the last rows' offsets need 64 bits."""
    if torch.cuda.get_device_properties(0).total_memory < 24 * 2**30:
        pytest.skip("needs two 4 GiB tensors and room to spare")
    x = torch.empty((1, 16, 16384, 8192), dtype=torch.float16, device="cuda", memory_format=torch.channels_last)
    x.normal_(generator=torch.Generator("cuda").manual_seed(int(rng.initial_seed())))
    _, weight, bias, params = make_problem(1, 16, 1, 1, 16, 1, torch.float16, "cuda", rng, groups=16)
    y = tilelab.conv2d_bn_silu(x, weight, bias, **params, groups=16)
    for rows in (slice(-2, None), slice(0, 2)):
        assert_matches(y[:, :, rows, :], x[:, :, rows, :], weight, bias, params, groups=16, label=f"rows {rows}")


# -- split-K ------------------------------------------------------------------------------------------------

SPLIT_LAYER = (3, 256, 7, 9, 200)  # 189 pixels x 200 channels, K = 2304: ragged tiles in both directions


def _split_tiles(dtype):
    g = conv_op.ConvGeometry(*SPLIT_LAYER[:5], 3, 3, (1, 1), (1, 1), (1, 1))
    element_size = torch.finfo(dtype).bits // 8
    return [conv_op.ConvConfig(**tile.as_dict(), split_k=split, windows_by_multiplication=multiply)
            for tile in conv_op._fitted(conv_op.SPLIT_K_TILES, g, element_size) for split in (2, 3, 4)
            for multiply in (False, True)]


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32], ids=str)
def test_every_split_k_tile(dtype, rng):
    """Every split tile the tuner may choose, in 2, 3 and 4 slices, dividing its pixels or multiplying (`-mul`); a
    second launch gives the same bits (the last slice sums in slice order, whichever finishes last)."""
    x, weight, bias, params = make_problem(*SPLIT_LAYER, 3, dtype, "cuda", rng)
    x = x.to(memory_format=torch.channels_last)
    weight = weight.to(memory_format=torch.channels_last)
    for config in _split_tiles(dtype):
        y = tilelab.conv2d_bn_silu(x, weight, bias, **params, padding=1, config=config)
        assert_matches(y, x, weight, bias, params, padding=1, label=config.label())
        again = tilelab.conv2d_bn_silu(x, weight, bias, **params, padding=1, config=config)
        assert torch.equal(y, again), f"{config.label()}: two launches differ"


def test_split_k_replays_and_graphs_follow_new_inputs(rng):
    """A recorded split launch takes a fresh workspace each call; a captured one replays with new inputs."""
    conv_op._REPLAYS.clear()
    config = conv_op.ConvConfig(64, 128, 64, 8, num_warps=4, num_stages=3, split_k=4)
    for call in range(3):
        x, weight, bias, params = make_problem(*SPLIT_LAYER, 3, torch.float16, "cuda", rng)
        x = x.to(memory_format=torch.channels_last)
        y = tilelab.conv2d_bn_silu(x, weight, bias, **params, padding=1, config=config)
        assert len(conv_op._REPLAYS) == 1
        assert_matches(y, x, weight, bias, params, padding=1, label=f"call {call}")

    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        y = tilelab.conv2d_bn_silu(x, weight, bias, **params, padding=1, config=config)
    for _ in range(2):
        for t in (x, weight):
            t.copy_(randn(tuple(t.shape), t.dtype, "cuda", rng))
        graph.replay()
        torch.cuda.synchronize()
        assert_matches(y, x, weight, bias, params, padding=1, label="graph replay")
