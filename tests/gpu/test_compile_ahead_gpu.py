"""`tuning.compile_ahead`: the tuner's candidates compiled on several threads before any is timed, none run."""

import math

import pytest
import torch
import triton

import tilelab
from tests.interpreter.test_conv_interpreter import make_problem
from tilelab import tuning
from tilelab.kernels.conv import conv2d_bn_silu_kernel
from tilelab.ops import conv as conv_op

pytestmark = pytest.mark.gpu


def _problem(rng):
    x, weight, bias, params = make_problem(2, 24, 13, 11, 40, 3, torch.float16, "cuda", rng)
    x = x.to(memory_format=torch.channels_last)
    g = conv_op.ConvGeometry(2, 24, 13, 11, 40, 3, 3, (1, 1), (1, 1), (1, 1))
    per_channel = (bias, params["running_mean"], params["running_var"], params["bn_weight"], params["bn_bias"])
    return x, weight, bias, params, g, per_channel


def _compiles_during(fn) -> int:
    """How many kernels Triton compiles (or loads from its disk cache) while fn runs."""
    runtime = triton.knobs.runtime
    previous, seen = runtime.jit_cache_hook, []
    runtime.jit_cache_hook = lambda **kwargs: seen.append(kwargs["repr"]) and False
    try:
        fn()
    finally:
        runtime.jit_cache_hook = previous
    return len(seen)


def test_candidates_compile_ahead_and_nothing_runs(rng):
    x, weight, bias, params, g, per_channel = _problem(rng)
    configs = conv_op.candidates(g, x.element_size())[:6]
    y = torch.full((2, 40, 13, 11), math.nan, device="cuda", dtype=x.dtype).to(memory_format=torch.channels_last)
    conv2d_bn_silu_kernel.device_caches.clear()  # compiled by earlier tests: forgotten in memory

    def launch(config):
        return conv_op._launch(config, x, weight, per_channel, y, 1e-5, g, "tf32", True)

    compiled = tuning.compile_ahead([lambda c=c: launch(c) for c in configs], threads=4)
    torch.cuda.synchronize()
    assert compiled == len(configs)
    assert torch.isnan(y).all()  # no candidate ran
    assert triton.knobs.runtime.jit_cache_hook is None
    # Each launch now finds its kernel: nothing compiles, and each writes what the public call computes.
    for config in configs:
        assert _compiles_during(lambda c=config: launch(c)) == 0, config.label()
        expected = tilelab.conv2d_bn_silu(x, weight, bias, **params, padding=1, config=config)
        assert torch.equal(y, expected), config.label()


def test_one_thread_compiles_nothing_ahead(rng, monkeypatch):
    x, weight, _, _, g, per_channel = _problem(rng)
    y = torch.empty((2, 40, 13, 11), device="cuda", dtype=x.dtype)
    config = conv_op.candidates(g, x.element_size())[0]
    monkeypatch.setenv("TILELAB_COMPILE_THREADS", "1")
    assert tuning.compile_threads() == 1
    assert tuning.compile_ahead([lambda: conv_op._launch(config, x, weight, per_channel, y, 1e-5, g, "tf32",
                                                         True)]) == 0


def test_a_failing_launch_is_left_for_its_timed_turn_and_the_hook_restored(rng):
    x, weight, _, _, g, per_channel = _problem(rng)
    y = torch.empty((2, 40, 13, 11), device="cuda", dtype=x.dtype).to(memory_format=torch.channels_last)
    config = conv_op.candidates(g, x.element_size())[1]
    conv2d_bn_silu_kernel.device_caches.clear()

    def broken():
        raise RuntimeError("a launch that needs its kernel's result")

    def launch():
        conv_op._launch(config, x, weight, per_channel, y, 1e-5, g, "tf32", True)

    assert tuning.compile_ahead([broken, launch], threads=2) == 1
    assert triton.knobs.runtime.jit_cache_hook is None


def test_the_tuner_compiles_every_candidate_ahead(rng, monkeypatch, tmp_path):
    """A key the table does not know: choose() hands all its candidates to compile_ahead, and its timed turns then
    compile nothing more."""
    fresh = tuning.TuningCache(tmp_path / "tuning.json")
    monkeypatch.setattr(tuning, "_cache", fresh)
    x, weight, bias, params, g, per_channel = _problem(rng)
    y = torch.empty((2, 40, 13, 11), device="cuda", dtype=x.dtype).to(memory_format=torch.channels_last)
    configs = conv_op.candidates(g, x.element_size())[:4]
    conv2d_bn_silu_kernel.device_caches.clear()
    real, ahead, timed = tuning.compile_ahead, [], []

    def spy(launches, threads=None):
        ahead.append(real(launches, threads))
        # From here on, count what the timed turns compile.
        triton.knobs.runtime.jit_cache_hook = lambda **kwargs: timed.append(kwargs["repr"]) and False
        return ahead[-1]

    monkeypatch.setattr(tuning, "compile_ahead", spy)
    try:
        chosen = tuning.choose("test|compile-ahead", configs,
                               lambda c: conv_op._launch(c, x, weight, per_channel, y, 1e-5, g, "tf32", True),
                               config_type=conv_op.ConvConfig)
    finally:
        triton.knobs.runtime.jit_cache_hook = None
    assert ahead == [len(configs)] and chosen in configs and timed == []
    assert set(fresh._entries["test|compile-ahead"]["timings_ms"]) == {c.label() for c in configs}
