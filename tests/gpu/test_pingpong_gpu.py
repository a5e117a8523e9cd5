"""The ping-pong path (fp16/bf16, two warp groups taking turns on whole tiles; a Gluon kernel) on a Hopper GPU,
against float64.

Run on the H200 with: TILELAB_REQUIRE_GPU=1 PYTHONPATH=src:. python -m pytest tests/gpu/test_pingpong_gpu.py -q
"""

import pytest
import torch

import tilelab
from tests.helpers import assert_gradients_match, assert_graph_replays, assert_matches_reference, randn
from tilelab import contracts
from tilelab.ops import gluon_launch
from tilelab.ops import matmul as matmul_op
from tilelab.ops import matmul_pingpong as pingpong

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("hopper_only", "poisoned_outputs")]

DTYPES = [torch.float16, torch.bfloat16]



# Ragged in every dimension, with rows of 16-byte multiples as TMA needs: one tile, a partial tile each way, K
# steps from 1 to 64 (K / 64), one tile per program (no second turn), an odd count of tiles per program, and
# more tiles than programs (4096^2: 1024 tiles on 128 programs, 4 turns per warp group).
SHAPES = [(1, 8, 8), (7, 16, 24), (65, 136, 64), (127, 264, 520), (300, 1000, 1000), (1000, 1000, 1000),
          (2100, 1504, 704), (4096, 4096, 4096)]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("m,n,k", SHAPES)
def test_pingpong_against_float64(m, n, k, dtype, rng):
    a = randn((m, k), dtype, "cuda", rng)
    b = randn((k, n), dtype, "cuda", rng)
    assert_matches_reference(tilelab.matmul(a, b, path="pingpong"), a, b, label=f"pingpong {m}x{n}x{k}")


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("m,n,k", [(7, 16, 24), (300, 1000, 1000), (2100, 1504, 704)])
def test_b_stored_k_major(m, n, k, dtype, rng):
    """B as nn.Linear holds it: a weight [N, K] multiplied transposed, read as it is stored."""
    a = randn((m, k), dtype, "cuda", rng)
    weight = randn((n, k), dtype, "cuda", rng)
    assert_matches_reference(tilelab.matmul(a, weight.t(), path="pingpong"), a, weight.t(), label="B [N, K]")


@pytest.mark.parametrize("m,n,k,expected", [(8192, 8192, 1024, "pingpong"), (4096, 4096, 2048, "pingpong"),
                                            (4096, 11008, 4096, "pingpong"), (4096, 4096, 4096, "persistent")])
def test_default_for_a_short_k_or_a_fuller_last_wave(m, n, k, expected, rng):
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    if sms != 132:
        pytest.skip("the choices measured on the H200's 132 SMs")
    a = randn((m, k), torch.float16, "cuda", rng)
    b = randn((k, n), torch.float16, "cuda", rng)
    plan = matmul_op.describe_plan(a, b)
    assert plan["path"] == expected
    if expected == "pingpong":
        config = pingpong.DEFAULT_CONFIG
        assert plan["config"] == config.as_dict()
        assert plan["programs"] == gluon_launch.persistent_programs(m, n, config, sms)
        assert matmul_op.describe_plan(a, randn((n, k), torch.float16, "cuda", rng).t())["path"] == "pingpong"
    assert_matches_reference(tilelab.matmul(a, b), a, b, label=f"default {m}x{n}x{k}")


@pytest.mark.parametrize("out_dtype", [torch.float32, torch.bfloat16, torch.float16])
def test_output_dtypes(out_dtype, rng):
    a = randn((700, 320), torch.float16, "cuda", rng)
    b = randn((320, 520), torch.float16, "cuda", rng)
    out = tilelab.matmul(a, b, out_dtype=out_dtype, path="pingpong")
    assert_matches_reference(out, a, b, out_dtype=out_dtype, label=str(out_dtype))


def test_strided_rows_and_offsets(rng):
    """Views into wider buffers (16-byte aligned row strides and offsets) are read as they are, not copied."""
    a = randn((900, 400), torch.float16, "cuda", rng)[:, 8:328]
    b = randn((320, 704), torch.float16, "cuda", rng)[:, 16:616]
    assert_matches_reference(tilelab.matmul(a, b, path="pingpong"), a, b, label="strided")


def test_refusals_fall_back_by_default(rng):
    """Rows TMA cannot read, and A stored [K, M]: the default goes elsewhere, and a forced path says why."""
    a = randn((4096, 1024), torch.float16, "cuda", rng)
    b = randn((1024, 4095), torch.float16, "cuda", rng)  # 8190-byte rows
    assert matmul_op.describe_plan(a, b)["path"] != "pingpong"
    assert_matches_reference(tilelab.matmul(a, b), a, b, label="misaligned B")
    with pytest.raises(contracts.ContractError, match="b must have a unit stride"):
        tilelab.matmul(a, b, path="pingpong")
    a_t = randn((1024, 4096), torch.float16, "cuda", rng).t()
    b = randn((1024, 4096), torch.float16, "cuda", rng)
    assert matmul_op.describe_plan(a_t, b)["path"] == "persistent"
    with pytest.raises(contracts.ContractError, match="a must be row-major"):
        tilelab.matmul(a_t, b, path="pingpong")


def test_replayed_launch_computes_new_inputs(rng, monkeypatch):
    monkeypatch.setattr(matmul_op, "_REPLAYS", {})  # the real cache, emptied (the fixture disables it)
    a1, a2 = (randn((1100, 640), torch.float16, "cuda", rng) for _ in range(2))
    w1, w2 = (randn((520, 640), torch.float16, "cuda", rng) for _ in range(2))
    first = tilelab.matmul(a1, w1.t(), path="pingpong")
    (replay,) = matmul_op._REPLAYS.values()
    assert replay.host_descriptors
    torch.full((1 << 22,), float("nan"), device="cuda")  # freed NaNs: the allocator hands them out next
    second = tilelab.matmul(a2, w2.t(), path="pingpong")
    assert second.data_ptr() != first.data_ptr()
    assert_matches_reference(first, a1, w1.t(), label="first call")
    assert_matches_reference(second, a2, w2.t(), label="replayed call")


def test_cuda_graph_capture(rng):
    a = randn((1024, 512), torch.bfloat16, "cuda", rng)
    b = randn((512, 640), torch.bfloat16, "cuda", rng)
    assert_graph_replays(lambda a, b: tilelab.matmul(a, b, path="pingpong"), (a, b), rng)


def test_gradients_with_the_path_forced(rng):
    """The backward multiplies by transposes (A^T, stored [K, M]), which this kernel does not take: the
    gradients plan their own paths."""
    a = randn((640, 384), torch.float16, "cuda", rng).requires_grad_()
    b = randn((384, 512), torch.float16, "cuda", rng).requires_grad_()
    assert_gradients_match(lambda a, b: tilelab.matmul(a, b, path="pingpong"), a, b, rng, max_error=5e-3)
