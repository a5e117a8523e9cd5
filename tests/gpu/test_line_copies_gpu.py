"""Products whose operands' rows TMA cannot read, copied onto 128-byte lines first (`tilelab.ops.line_copies`), on
a Hopper GPU: the copies named by `describe_plan`, the result against float64, the caller's operands untouched, and
the replay and the CUDA graph copying each call's new values (a stale copy would multiply the first call's)."""

import pytest
import torch

import tilelab
from tests.helpers import assert_gradients_match, assert_graph_replays, assert_matches_reference, randn
from tilelab.ops import matmul as matmul_op

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("poisoned_outputs")]


def needs_hopper():
    if torch.cuda.get_device_capability()[0] < 9:
        pytest.skip("copies onto lines open the TMA paths, which need a Hopper GPU")


def operands(case: str, dtype, gen):
    """(a, b, the operands copied) for each layout the copies take."""
    def r(*shape):
        return randn(shape, dtype, "cuda", gen)

    if case == "odd everywhere":
        return r(1001, 1001), r(1001, 1001), ["a", "b"]
    if case == "odd K":
        return r(1024, 1001), r(1001, 1024), ["a"]
    if case == "odd N":
        return r(2048, 1024), r(1024, 5003), ["b"]
    if case == "8-byte rows":
        return r(1500, 1500), r(1500, 1500), ["a", "b"]
    if case == "B stored [N, K]":
        return r(1003, 1001), r(1000, 1001).mT, ["a", "b"]
    if case == "A one element into its storage":
        return r(1024 * 1024 + 1)[1:].view(1024, 1024), r(1024, 1024), ["a"]
    if case == "batch":
        return r(3, 600, 1001), r(3, 1001, 603), ["a", "b"]
    if case == "B shared by a batch":
        return r(4, 300, 1001), r(1001, 1001), ["a", "b"]
    raise AssertionError(case)


CASES = ["odd everywhere", "odd K", "odd N", "8-byte rows", "B stored [N, K]", "A one element into its storage",
         "batch", "B shared by a batch"]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_copied_operands_multiply_right_and_stay_untouched(case, dtype, rng):
    needs_hopper()
    a, b, copied = operands(case, dtype, rng)
    described = matmul_op.describe_plan(a, b)
    assert described["line_copies"] == copied and described["path"] in ("descriptor", "persistent", "pingpong")
    a_before, b_before = a.clone(), b.clone()
    out = tilelab.matmul(a, b)
    assert torch.equal(a, a_before) and torch.equal(b, b_before)
    assert_matches_reference(out, a, b, label=f"{case} {dtype}", on_device=True)


@pytest.mark.parametrize("case", ["odd everywhere", "odd N", "B stored [N, K]", "batch", "B shared by a batch"])
def test_replays_and_graphs_copy_each_calls_values(case, rng, monkeypatch):
    needs_hopper()
    monkeypatch.setattr(matmul_op, "_REPLAYS", {})  # the real cache, emptied (the fixture disables it)
    a1, b1, copied = operands(case, torch.float16, rng)
    first = tilelab.matmul(a1, b1)
    (replay,) = matmul_op._REPLAYS.values()
    assert [name for name, *_ in replay.line_copies] == copied
    a2, b2, _ = operands(case, torch.float16, rng)
    torch.full((1 << 24,), float("nan"), device="cuda")  # freed NaNs: the allocator hands them out next
    second = tilelab.matmul(a2, b2)
    assert_matches_reference(first, a1, b1, label="first call", on_device=True)
    assert_matches_reference(second, a2, b2, label="replayed call", on_device=True)
    assert_graph_replays(tilelab.matmul, (a1, b1), rng, label="graph replay", on_device=True)


def test_gradients_through_copied_operands(rng):
    needs_hopper()  # dA = G @ B^T and dB = A^T @ G have odd rows too: each copies what it reads
    a = randn((1001, 1003), torch.float16, "cuda", rng).requires_grad_()
    b = randn((1003, 1001), torch.float16, "cuda", rng).requires_grad_()
    assert_gradients_match(tilelab.matmul, a, b, rng)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_linear_copies_x_and_weight_and_its_replays_copy_each_calls(dtype, rng, monkeypatch):
    """tilelab.linear with a bias and GELU (its own plan and replays) on 1001 input features: x's and weight's
    rows are odd, so both are copied (weight's rows: B = weight.T stays column-major)."""
    from tests.gpu.test_linear_gpu import operands as linear_operands
    from tests.interpreter.test_linear_interpreter import check
    from tilelab.ops.linear import describe_linear, linear

    needs_hopper()
    monkeypatch.setattr(matmul_op, "_REPLAYS", {})  # the real cache, emptied (the fixture disables it)
    x, weight, bias = linear_operands((), 1024, 1003, 1001, dtype, rng)
    plan = describe_linear(x, weight, bias, activation="gelu")
    assert plan["line_copies"] == ["a", "b"] and plan["path"] in ("descriptor", "persistent", "pingpong"), plan
    check(linear(x, weight, bias, activation="gelu"), x, weight, bias, "gelu", label="first call")
    (replay,) = matmul_op._REPLAYS.values()
    assert [name for name, *_ in replay.line_copies] == ["a", "b"]
    for _ in range(2):  # new values in the same buffers, then new buffers
        for t in (x, weight, bias):
            t.copy_(randn(tuple(t.shape), t.dtype, "cuda", rng))
        torch.full((1 << 24,), float("nan"), device="cuda")  # freed NaNs: the allocator hands them out next
        check(linear(x, weight, bias, activation="gelu"), x, weight, bias, "gelu", label="replayed call")
        x, weight, bias = linear_operands((), 1024, 1003, 1001, dtype, rng)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        captured = linear(x, weight, bias, activation="gelu")
    for t in (x, weight, bias):
        t.copy_(randn(tuple(t.shape), t.dtype, "cuda", rng))
    graph.replay()
    torch.cuda.synchronize()
    check(captured, x, weight, bias, "gelu", label="graph replay")
