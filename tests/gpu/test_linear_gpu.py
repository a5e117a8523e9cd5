"""`tilelab.ops.linear.linear` on the GPU: the fused epilogue on the kernels the default plan takes, bf16 included.

`check` is tests/interpreter/test_linear_interpreter.py's: F.linear and the activation in float64 on the GPU (the
large shapes would take minutes on the CPU), errors measured against the pre-activation's norm (gelu's erf form
computes its far negative tail as 0, as torch's does).
"""

import pytest
import torch
import torch.nn.functional as F

from tests.helpers import randn
from tests.interpreter.test_linear_interpreter import check
from tilelab.ops import linear as linear_op
from tilelab.ops import matmul as matmul_op
from tilelab.ops import matmul_hopper
from tilelab.ops.linear import describe_linear, linear
from tilelab.reference import tolerance

pytestmark = pytest.mark.gpu

ACTIVATIONS = [None, "relu", "gelu", "silu"]
DTYPES = [torch.float16, torch.bfloat16]
# (leading dims, M, N, K): large, ragged, skinny (matmul's split-K shape, kept on split-K), rows off 32-byte
# sectors, 3-D x, and an MLP's up-projection.
SHAPES = [((), 4096, 4096, 4096), ((), 127, 255, 65), ((), 16, 4096, 4096), ((), 1000, 1000, 1000),
          ((4,), 77, 1024, 768), ((), 2048, 11008, 4096), ((), 3000, 1000, 520)]


def operands(lead, m, n, k, dtype, gen, bias=True):
    x = randn((*lead, m, k), dtype, "cuda", gen)
    weight = randn((n, k), dtype, "cuda", gen)
    return x, weight, (randn((n,), dtype, "cuda", gen) if bias else None)


def count_launches(monkeypatch) -> list:
    """Every launch through matmul's full path (`_launch_plan`), recorded: a replayed call adds none."""
    launches = []
    real = matmul_op._launch_plan

    def counting(*args, **kwargs):
        launches.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(matmul_op, "_launch_plan", counting)
    return launches


@pytest.mark.parametrize("lead,m,n,k", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_default_plan_every_activation(lead, m, n, k, dtype, rng):
    for activation in ACTIVATIONS:
        for with_bias in (True, False):
            x, weight, bias = operands(lead, m, n, k, dtype, rng, with_bias)
            out = linear(x, weight, bias, activation=activation)
            plan = describe_linear(x, weight, bias, activation=activation)
            if bias is not None or activation is not None:
                assert plan["path"] in linear_op.EPILOGUE_PATHS, plan
            check(out, x, weight, bias, activation, label=f"{lead}x{m}x{n}x{k} {dtype} {activation} {plan['path']}")


def test_default_plan_for_4096_cubed_fp16_is_the_persistent_kernel(rng):
    x, weight, bias = operands((), 4096, 4096, 4096, torch.float16, rng)
    plan = describe_linear(x, weight, bias, activation="gelu")
    assert plan["path"] == "persistent", plan
    assert describe_linear(x, weight, None, activation="relu")["path"] == "persistent"


@pytest.mark.parametrize("path", ["pointer", "descriptor", "persistent", "pingpong"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_forced_paths_on_a_ragged_shape(path, dtype, rng):
    for activation in ACTIVATIONS[1:]:
        x, weight, bias = operands((3,), 333, 1000, 264, dtype, rng)
        out = linear(x, weight, bias, activation=activation, path=path)
        assert describe_linear(x, weight, bias, activation=activation, path=path)["path"] == path
        check(out, x, weight, bias, activation, label=f"{path} {dtype} {activation}")


@pytest.mark.parametrize("dtype", DTYPES)
def test_short_k_default_plan_keeps_pingpong(dtype, rng):
    """x [8192, 1024] @ weight [8192, 1024].T: the matmul takes the pingpong kernel there (a short K), and
    linear now does too, with the epilogue on each half tile (before, it re-planned on the persistent kernel)."""
    x, weight, bias = operands((), 8192, 8192, 1024, dtype, rng)
    assert matmul_op.describe_plan(x, weight.mT)["path"] == "pingpong"
    for activation in ("gelu", "silu"):
        plan = describe_linear(x, weight, bias, activation=activation)
        assert plan["path"] == "pingpong", plan
        check(linear(x, weight, bias, activation=activation), x, weight, bias, activation,
              label=f"8192x8192x1024 {dtype} {activation}")


@pytest.mark.parametrize("dtype", DTYPES)
def test_skinny_default_plan_keeps_split_k(dtype, rng):
    """x [16, 4096] @ weight [4096, 4096].T: the matmul splits K there, and linear now splits too, with the
    epilogue on the slices' sum (before split-K had it, linear re-planned this shape on another kernel)."""
    x, weight, bias = operands((), 16, 4096, 4096, dtype, rng)
    assert matmul_op.describe_plan(x, weight.mT)["path"] == "splitk"
    for activation in ACTIVATIONS:
        plan = describe_linear(x, weight, bias, activation=activation)
        assert plan["path"] == "splitk", plan
        check(linear(x, weight, bias, activation=activation), x, weight, bias, activation,
              label=f"16x4096x4096 {dtype} {activation}")


# Split-K through pointers (fewer than 256 rows of C: rows of 1000 elements, 3-D x) and through TMA (from 256).
SPLIT_SHAPES = [((), 16, 1000, 4000), ((3,), 7, 520, 1000), ((), 300, 520, 2048), ((), 1024, 64, 4096)]


@pytest.mark.parametrize("lead,m,n,k", SPLIT_SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_forced_split_k_with_every_split(lead, m, n, k, dtype, rng):
    rows = m * (lead[0] if lead else 1)
    configs = matmul_hopper.split_k_candidates(rows, n, k, 1, 2, matmul_hopper.device_sms(torch.device("cuda")))
    chosen = {c.split_k: c for c in configs}  # one configuration per number of slices, 1 (no split) included
    for config in [None, *chosen.values()]:
        for activation in ("gelu", "silu", "relu"):
            x, weight, bias = operands(lead, m, n, k, dtype, rng)
            out = linear(x, weight, bias, activation=activation, path="splitk", config=config)
            plan = describe_linear(x, weight, bias, activation=activation, path="splitk", config=config)
            assert plan["path"] == "splitk", plan
            label = f"{lead}x{m}x{n}x{k} {dtype} {activation} {config.label() if config else 'tuned'}"
            check(out, x, weight, bias, activation, label=label)


@pytest.mark.parametrize("precision", ["tf32", "tf32x3", "ieee"])
def test_float32_on_split_k(precision, rng):
    for activation in ("gelu", "silu"):
        x, weight, bias = operands((), 32, 768, 4096, torch.float32, rng)
        check(linear(x, weight, bias, activation=activation, precision=precision, path="splitk"), x, weight,
              bias, activation, precision, f"split-K {precision} {activation}")


@pytest.mark.parametrize("m", [16, 300])  # split-K's pointer kernel and its descriptor kernel
@pytest.mark.parametrize("split", [None, 4])  # the tuned configuration, and a forced split in 4
def test_split_k_replays_read_each_calls_bias(m, split, rng, monkeypatch):
    """A split-K linear is recorded and replayed like the other paths, with a fresh workspace and the stream's
    tile counters on each call, and each call's bias: the second call with new bias values (in place, then in
    a new buffer) must use them. The counters are left at zero after every launch."""
    monkeypatch.setattr(matmul_op, "_REPLAYS", {})
    launches = count_launches(monkeypatch)
    n, k = 520, 4096
    config = None
    if split is not None:
        config = next(c for c in matmul_hopper.split_k_candidates(m, n, k, 1, 2, matmul_hopper.device_sms(
            torch.device("cuda"))) if c.split_k == split)
    x, weight, bias = operands((), m, n, k, torch.float16, rng)
    first = linear(x, weight, bias, activation="gelu", path="splitk", config=config)
    check(first, x, weight, bias, "gelu", label=f"split-K {m} rows, first call")
    (replay,) = matmul_op._REPLAYS.values()
    assert isinstance(replay, linear_op._LinearReplay) and replay.split_k is not None
    for again in range(3):  # new bias values in place, then a new bias buffer, then new x, weight and bias
        if again == 0:
            bias.copy_(randn((n,), bias.dtype, "cuda", rng))
        elif again == 1:
            bias = randn((n,), torch.float16, "cuda", rng)
        else:
            x, weight, bias = operands((), m, n, k, torch.float16, rng)
        out = linear(x, weight, bias, activation="gelu", path="splitk", config=config)
        torch.cuda.synchronize()
        check(out, x, weight, bias, "gelu", label=f"split-K {m} rows, replay {again}")
        assert not matmul_hopper.split_k_counters(x.device, 1).any(), "tile counters not left at zero"
    assert len(launches) == 1, "replayed calls went through the full path"
    # A plain matmul of the same operands keeps its own recorded split-K launch (the epilogue's defaults passed).
    for _ in range(2):
        check(matmul_op.matmul(x, weight.mT, path="splitk", config=config), x, weight, None, None, label="matmul")


@pytest.mark.parametrize("precision", ["tf32", "tf32x3", "ieee"])
def test_float32(precision, rng):
    for activation in ("gelu", "silu"):
        x, weight, bias = operands((), 1024, 768, 512, torch.float32, rng)
        check(linear(x, weight, bias, activation=activation, precision=precision), x, weight, bias, activation,
              precision, f"{precision} {activation}")


@pytest.mark.parametrize("config", matmul_hopper.prune(matmul_hopper.PERSISTENT_CANDIDATES, 2048, 2048, 2, 2),
                         ids=lambda c: c.label())
def test_every_persistent_candidate_keeps_the_epilogue(config, rng):
    """Tuned winners may be warp-specialized, flattened or not subtiled: each fuses the epilogue correctly."""
    x, weight, bias = operands((), 1000, 1500, 512, torch.float16, rng)
    out = linear(x, weight, bias, activation="gelu", path="persistent", config=config)
    check(out, x, weight, bias, "gelu", label=config.label())


def test_replays_read_each_calls_operands_and_bias(rng, monkeypatch):
    launches = count_launches(monkeypatch)
    for path in ("pointer", "descriptor", "persistent", "pingpong"):
        x, weight, bias = operands((), 300, 520, 256, torch.float16, rng)
        launches.clear()
        first = linear(x, weight, bias, activation="silu", path=path)
        check(first, x, weight, bias, "silu", label=f"{path} first call")
        assert len(launches) == 1, path
        assert any(isinstance(key[0], str) and key[0] == "linear" for key in matmul_op._REPLAYS), path
        for _ in range(2):  # new values in the same buffers, then new buffers (another bias address)
            for t in (x, weight, bias):
                t.copy_(randn(tuple(t.shape), t.dtype, "cuda", rng))
            check(linear(x, weight, bias, activation="silu", path=path), x, weight, bias, "silu",
                  label=f"{path} replay")
            x, weight, bias = operands((), 300, 520, 256, torch.float16, rng)
        assert len(launches) == 1, f"{path}: replayed calls went through the full path"
        # Without bias: another key, its own recorded launch.
        for _ in range(2):
            x = randn(tuple(x.shape), x.dtype, "cuda", rng)
            check(linear(x, weight, None, activation="silu", path=path), x, weight, None, "silu", label="no bias")
        assert len(launches) == 2, path


def test_a_replay_never_stands_in_for_a_matmul_or_another_activation(rng):
    x, weight, bias = operands((), 256, 512, 128, torch.float16, rng)
    for _ in range(2):
        check(linear(x, weight, bias, activation="relu"), x, weight, bias, "relu", label="relu")
        check(linear(x, weight, bias, activation="gelu"), x, weight, bias, "gelu", label="gelu")
        plain = matmul_op.matmul(x, weight.mT)
        check(plain, x, weight, None, None, label="matmul")


@pytest.mark.parametrize("dtype", DTYPES)
def test_gradients_match_float64(dtype, rng):
    x, weight, bias = operands((2,), 200, 300, 256, dtype, rng)
    leaves = [t.requires_grad_() for t in (x, weight, bias)]
    out = linear(*leaves, activation="gelu")
    grad = randn(tuple(out.shape), dtype, "cuda", rng)
    out.backward(grad)
    ref = [t.detach().double().requires_grad_() for t in (x, weight, bias)]
    F.gelu(F.linear(*ref)).backward(grad.double())
    for got, want, name in zip((x.grad, weight.grad, bias.grad), (t.grad for t in ref), ("x", "weight", "bias"),
                               strict=True):
        err = ((got.double() - want).norm() / want.norm()).item()
        assert err < 2 * tolerance(dtype), f"d{name}: relative error {err:.2e}"
