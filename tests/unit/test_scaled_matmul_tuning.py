"""scaled_matmul's config choice: a tuned winner by key if known, else the first candidate, timed only on request.

No GPU needed for the key and cache tests: `choose_config` is asked about a
pretend H200 (Triton's interpreter switch and the GPU name patched), with a
private, empty tuning cache. A call that is not meant to time anything gets
a launch (and a `measure_ms`) that fails the test if called.
"""

import dataclasses
import json
import types

import pytest
import torch

from tests.helpers import randn
from tilelab import env, tuning
from tilelab.bench import cli
from tilelab.ops import scaled_matmul as op
from tilelab.ops.matmul_hopper import FP8_CANDIDATES, HopperConfig

CUDA = torch.device("cuda", 0)
BF16 = torch.bfloat16
KEY_8192_FAST = "NVIDIA H200|fp8|float8_e4m3fn|bfloat16|fast|abt|8192x8192x8192"


def _no_launch(config):
    raise AssertionError(f"launched {config.label()}: nothing should be timed")


@pytest.fixture
def h200(monkeypatch, tmp_path) -> tuning.TuningCache:
    """A pretend H200 with an empty private tuning cache (no shipped table: its future fp8 entries must not
    decide these tests)."""
    monkeypatch.setattr(env, "interpreting", lambda: False)
    monkeypatch.setattr(env, "gpu_name", lambda index: "NVIDIA H200")
    monkeypatch.setattr(op, "device_sms", lambda device: 132)
    monkeypatch.setattr(tuning, "measure_ms", lambda launch: pytest.fail("measure_ms called"))
    cache = tuning.TuningCache(tmp_path / "tuning.json")
    cache._shipped = {}
    monkeypatch.setattr(tuning, "_cache", cache)
    return cache


def test_key_looks_like_the_matmul_keys(h200):
    assert op.tuning_key(CUDA, BF16, 8192, 8192, 8192, True) == KEY_8192_FAST
    # Same bucket for nearby shapes; accumulation and output dtype are part of the key.
    assert op.tuning_key(CUDA, BF16, 5000, 6000, 7000, True) == KEY_8192_FAST
    assert op.tuning_key(CUDA, BF16, 8192, 8192, 8192, False).split("|")[4] == "promoted"
    assert op.tuning_key(CUDA, torch.float32, 8192, 8192, 8192, True).split("|")[3] == "float32"


def test_unknown_key_gets_the_first_candidate_untimed(h200):
    # Fast accumulation starts from the fused-loop tile that won every tuned shape; promoted from the unfused one.
    fused = op.choose_config(CUDA, BF16, 8192, 8192, 8192, True, _no_launch)
    assert fused.flatten and fused.num_stages == 4 and fused in FP8_CANDIDATES
    assert op.choose_config(CUDA, BF16, 8192, 8192, 8192, False, _no_launch) == FP8_CANDIDATES[0]
    assert not FP8_CANDIDATES[0].flatten
    # A float32 output does not fit 4 stages: the first that fits (the fused 3-stage tile).
    first_fp32 = op.choose_config(CUDA, torch.float32, 8192, 8192, 8192, True, _no_launch)
    assert first_fp32 == op.candidates(8192, 8192, torch.float32, True)[0]
    assert first_fp32.flatten and first_fp32.num_stages == 3
    assert sorted(map(HopperConfig.label, op.candidates(8192, 8192, BF16, True))) == sorted(
        map(HopperConfig.label, op.candidates(8192, 8192, BF16)))  # the same candidates, reordered
    assert not h200.path.exists()  # nothing measured, nothing remembered


@pytest.mark.parametrize("m,n,expected", [
    (128, 256, (64, 64)),  # 8 tiles at most: the smallest tile, the most SMs
    (256, 512, (64, 64)),
    (1024, 1024, (64, 128)),  # the first tile that gives half the SMs a program: 128 tiles
    (4096, 4096, (128, 256)),  # plenty of tiles: the large problems' default
])
def test_an_untuned_small_problem_gets_a_tile_that_fills_the_gpu(h200, m, n, expected):
    for fast in (True, False):
        chosen = op.choose_config(CUDA, BF16, m, n, 512, fast, _no_launch)
        assert (chosen.block_m, chosen.block_n) == expected, (m, n, fast, chosen.label())
        assert chosen in op.candidates(m, n, BF16, fast)


def test_a_cache_entry_is_honoured_by_the_key_scaled_matmul_builds(h200):
    winner = next(c for c in FP8_CANDIDATES[1:] if not c.epilogue_subtile)  # a HopperConfig-only field differs
    h200.put(KEY_8192_FAST, winner, {winner.label(): 1.0})
    assert op.choose_config(CUDA, BF16, 8192, 8192, 8192, True, _no_launch) == winner
    assert op.choose_config(CUDA, BF16, 6000, 8000, 5000, True, _no_launch) == winner  # same bucket
    # Other keys are not affected: promoted accumulation and other buckets still get their defaults.
    assert op.choose_config(CUDA, BF16, 8192, 8192, 8192, False, _no_launch) == FP8_CANDIDATES[0]
    assert op.choose_config(CUDA, BF16, 4096, 4096, 4096, True, _no_launch) == op.candidates(4096, 4096, BF16,
                                                                                             True)[0]
    # A later process reads it from disk.
    assert tuning.TuningCache(h200.path).get(KEY_8192_FAST, HopperConfig) == winner


def test_measuring_times_every_candidate_and_remembers_the_fastest(h200, monkeypatch):
    fastest = next(c for c in FP8_CANDIDATES if c.block_m == 256)
    launched = []

    def fake_measure(launch, samples=tuning.TUNING_SAMPLES):
        launch()
        return 0.5 if launched[-1] == fastest else 1.0

    monkeypatch.setattr(tuning, "measure_ms", fake_measure)
    monkeypatch.setattr(torch.cuda, "is_current_stream_capturing", lambda: False)
    chosen = op.choose_config(CUDA, BF16, 8192, 8192, 8192, True, launched.append, measure=True)
    assert chosen == fastest
    # Every candidate, taking turns: forward, then back.
    order = op.candidates(8192, 8192, BF16, True)
    assert launched == (order + order[::-1]) * (tuning.TUNING_ROUNDS // 2)
    entry = json.loads(h200.path.read_text())["entries"][KEY_8192_FAST]
    assert len(entry["timings_ms"]) == len(order)
    # The next (untimed) call takes the winner.
    assert op.choose_config(CUDA, BF16, 8192, 8192, 8192, True, _no_launch) == fastest


def test_every_candidate_fits_hopper_shared_memory_for_a_bf16_output():
    kept = op.candidates(8192, 8192, BF16)
    assert kept[0] == FP8_CANDIDATES[0]
    assert set(kept) == set(FP8_CANDIDATES)  # none is pruned away at the shape the tuning is for
    assert len(set(FP8_CANDIDATES)) == len(FP8_CANDIDATES)
    assert len({c.label() for c in FP8_CANDIDATES}) == len(FP8_CANDIDATES)  # kernel-bench variant names


# -- on Triton's interpreter ---------------------------------------------------------------------

interpreter_only = pytest.mark.skipif(not env.interpreting(), reason="runs CPU tensors on Triton's interpreter")


@interpreter_only
@pytest.mark.parametrize("fast_accum", [True, False])
def test_interpreter_keeps_its_small_tiles_and_matches_float64(fast_accum, monkeypatch, rng):
    used = []
    real = op.launch_scaled

    def spy(*args):
        used.append(args[8])  # the config
        return real(*args)

    monkeypatch.setattr(op, "launch_scaled", spy)
    m, n, k = 70, 96, 64
    a = (randn((m, k), torch.float32, "cpu", rng) * 2).to(op.INPUT_DTYPE)
    b = (randn((n, k), torch.float32, "cpu", rng) * 2).to(op.INPUT_DTYPE).t()
    scale_a, scale_b = torch.tensor([0.375]), torch.tensor([2.5])
    out = op.scaled_matmul(a, b, scale_a, scale_b, out_dtype=torch.float32, use_fast_accum=fast_accum)
    assert used == [op.INTERPRETER_CONFIG]
    ref = op.scaled_matmul_reference(a, b, scale_a, scale_b)
    assert (out.double() - ref).abs().max().item() <= 1e-5 * ref.abs().max().item()


@interpreter_only
@pytest.mark.parametrize("flatten", [False, True])
def test_interpreter_more_tiles_than_programs_with_and_without_fused_loops(flatten, rng):
    # 3 x 4 tiles of 32x32 over 4 programs: every program stores tiles after its first (the epilogue's own
    # tile counter, which FLATTEN relies on).
    config = dataclasses.replace(op.INTERPRETER_CONFIG, flatten=flatten)
    m, n, k = 70, 127, 96
    a = (randn((m, k), torch.float32, "cpu", rng) * 2).to(op.INPUT_DTYPE)
    b = (randn((n, k), torch.float32, "cpu", rng) * 2).to(op.INPUT_DTYPE).t()
    scale_a, scale_b = torch.tensor([0.5]), torch.tensor([1.5])
    out = op.scaled_matmul(a, b, scale_a, scale_b, out_dtype=torch.float32, use_fast_accum=True, config=config)
    ref = op.scaled_matmul_reference(a, b, scale_a, scale_b)
    assert (out.double() - ref).abs().max().item() <= 1e-5 * ref.abs().max().item()


@interpreter_only
def test_pretune_scaled_records_and_skips_what_the_op_refuses():
    records = op.pretune_scaled([(64, 80, 48), (64, 80, 40), (0, 16, 16)], device="cpu")
    # K = 40 is not a multiple of 16 (TMA): refused by contract, so skipped; an empty problem has nothing to tune.
    assert [(r["shape"], r["use_fast_accum"]) for r in records] == [([64, 80, 48], True), ([64, 80, 48], False)]
    assert all(r["path"] == "fp8" and r["out_dtype"] == "bfloat16" for r in records)
    assert all(HopperConfig.from_dict(r["config"]) == op.INTERPRETER_CONFIG for r in records)


@interpreter_only
def test_kernel_bench_tune_routes_scaled_matmul_cases_to_pretune_scaled():
    case = types.SimpleNamespace(op=types.SimpleNamespace(name="scaled_matmul"), shape=(64, 80, 48),
                                 dtype="float8_e4m3fn")
    tuned = cli._pretune([case], None, torch.device("cpu"))
    assert [(t["path"], t["use_fast_accum"]) for t in tuned] == [("fp8", True), ("fp8", False)]


def test_replay_key_only_for_a_well_formed_call_on_the_gpu():
    a = torch.empty(64, 32, dtype=op.INPUT_DTYPE)
    b = torch.empty(48, 32, dtype=op.INPUT_DTYPE).t()
    one = torch.ones(1)
    assert op._replay_key(a, b, one, one, BF16, True, None) is None  # CPU tensors: the interpreter, no replays
    gpu_a = _Cuda(a)
    assert op._replay_key(gpu_a, b, one, one, BF16, True, None) is not None
    assert op._replay_key(gpu_a, b, 1.0, one, BF16, True, None) is None
    for bad in ({"out_dtype": "bfloat16"}, {"use_fast_accum": 1}, {"config": "fixed"}):
        call = {"out_dtype": BF16, "use_fast_accum": True, "config": None, **bad}
        # Anything the key cannot vouch for goes to the contract check (which names the bad argument).
        assert op._replay_key(gpu_a, b, one, one, **call) is None, bad


class _Cuda(torch.Tensor):
    """A CPU tensor that says it is on a GPU: enough for the key's own checks."""

    @staticmethod
    def __new__(cls, t):
        return torch.Tensor._make_subclass(cls, t)

    @property
    def is_cuda(self):
        return True
