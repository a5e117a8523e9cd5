"""conv2d_bn_silu on the GPU: every tile the tuner may choose, CUDA graphs, and offsets past 2**31."""

import pytest
import torch

import tilelab
from tests.helpers import randn
from tests.interpreter.test_conv_interpreter import assert_matches, make_problem
from tilelab.ops import conv as conv_op

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


def test_the_tuned_choice_is_remembered(rng):
    x, weight, bias, params = make_problem(4, 64, 28, 28, 64, 3, torch.float16, "cuda", rng)
    x = x.to(memory_format=torch.channels_last)
    tilelab.conv2d_bn_silu(x, weight, bias, **params, padding=1)
    g = conv_op.ConvGeometry(4, 64, 28, 28, 64, 3, 3, (1, 1), (1, 1), (1, 1))
    from tilelab import tuning

    assert tuning.known(conv_op.tuning_key(x, weight, g, "tf32", True)) is not None
    plan = conv_op.describe_plan(x, weight, bias, **params, padding=1)
    assert plan["config"] == tuning.known(conv_op.tuning_key(x, weight, g, "tf32", True)).as_dict()


def test_graph_replay_follows_new_inputs(rng):
    x, weight, bias, params = make_problem(2, 32, 17, 17, 48, 3, torch.float16, "cuda", rng)
    x = x.to(memory_format=torch.channels_last)

    def run():
        return tilelab.conv2d_bn_silu(x, weight, bias, **params, padding=1)

    run()  # tunes and compiles outside capture
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        y = run()
    for _ in range(2):
        for t in (x, weight):
            t.copy_(randn(tuple(t.shape), t.dtype, "cuda", rng))
        graph.replay()
        torch.cuda.synchronize()
        assert_matches(y, x, weight, bias, params, padding=1, label="graph replay")


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

    @torch.compile(fullgraph=True)
    def block(x):
        return torch.ops.tilelab.conv2d_bn_silu(x, weight, bias, params["running_mean"], params["running_var"],
                                                params["bn_weight"], params["bn_bias"], 1e-5, [1, 1], [1, 1], [1, 1])

    assert_matches(block(x), x, weight, bias, params, padding=1, label="torch.compile")


@pytest.mark.parametrize("channels_last", [True, False], ids=["channels_last", "nchw"])
@pytest.mark.parametrize("affine", [True, False], ids=["affine", "no_affine"])
def test_replays_serve_later_calls_with_new_tensors(channels_last, affine, rng):
    """The second call with the same signature replays the first's launch; it must read the new tensors."""
    conv_op._REPLAYS.clear()
    for call in range(3):
        x, weight, bias, params = make_problem(2, 24, 13, 11, 40, 3, torch.float16, "cuda", rng, affine=affine,
                                               conv_bias=affine)
        if channels_last:
            x = x.to(memory_format=torch.channels_last)
        y = tilelab.conv2d_bn_silu(x, weight, bias, **params, stride=2, padding=1)
        assert len(conv_op._REPLAYS) == 1, "one signature, one recorded launch"
        assert_matches(y, x, weight, bias, params, stride=2, padding=1, label=f"call {call}")
        assert y.is_contiguous(memory_format=torch.channels_last) == channels_last
