"""Correctness gate and the sweep loop, with torch-only variants and a fake GPU timer."""

import dataclasses

import pytest
import torch

import tilelab
from tilelab.bench import correctness, registry, sweep, timing
from tilelab.contracts import AlignmentError


def _inputs(m=8, n=6, k=5):
    g = torch.Generator().manual_seed(1)
    return torch.randn((m, k), generator=g), torch.randn((k, n), generator=g)


def test_check_statuses():
    a, b = _inputs()
    ref = a.double() @ b.double()
    ok = correctness.check(lambda a, b: a @ b, (a, b), ref, 1e-5)
    assert ok.status == "ok" and ok.error < 1e-6
    wrong = correctness.check(lambda a, b: (a @ b) * 1.01, (a, b), ref, 1e-5)
    assert wrong.status == "wrong" and wrong.error == pytest.approx(0.01, rel=1e-3) and "tolerance" in wrong.message
    nan = correctness.check(lambda a, b: torch.full((8, 6), float("nan")), (a, b), ref, 1e-5)
    assert nan.status == "wrong" and nan.error is None and "NaN" in nan.message

    def refuse(a, b):
        raise AlignmentError("rows not 16-byte aligned")

    def crash(a, b):
        raise RuntimeError("illegal memory access")

    assert correctness.check(refuse, (a, b), ref, 1e-5).status == "unsupported"
    failed = correctness.check(crash, (a, b), ref, 1e-5)
    assert failed.status == "failed" and "illegal memory access" in failed.message
    shape = correctness.check(lambda a, b: (a @ b)[:, :5], (a, b), ref, 1e-5)
    assert shape.status == "failed"


def test_relative_error_definition():
    ref = torch.tensor([3.0, 4.0], dtype=torch.float64)
    assert correctness.relative_error(torch.tensor([3.0, 4.0]), ref) == 0.0
    assert correctness.relative_error(torch.tensor([3.0, 9.0]), ref) == pytest.approx(1.0)


def _toy_op(variant_list):
    return registry.OpSpec(
        name="toy", dims=("M", "N", "K"), default_shapes=((8, 6, 5), (4, 4, 4)), check_shapes=((3, 3, 3),),
        dtypes=("float32",),
        make_inputs=lambda shape, dtype, device, g: (
            torch.randn((shape[0], shape[2]), generator=g, device=device, dtype=dtype),
            torch.randn((shape[2], shape[1]), generator=g, device=device, dtype=dtype)),
        reference=lambda a, b: a.double() @ b.double(),
        flops=lambda s: 2 * s[0] * s[1] * s[2],
        bytes_moved=lambda s, dtype: 4 * (s[0] * s[2] + s[2] * s[1] + s[0] * s[1]),
        variants=lambda options: variant_list,
        tolerance=lambda dtype, precision: 1e-5,
    )


VARIANTS = [
    registry.Variant("torch", lambda a, b: a @ b, lambda a, b: {"library": "torch"}, baseline=True),
    registry.Variant("fast", lambda a, b: a @ b, lambda a, b: {"config": "fast"}),
    registry.Variant("wrong", lambda a, b: (a @ b) + 1.0),
    registry.Variant("extra", lambda a, b: a @ b, default=False),
]


def test_all_among_other_variant_names_means_all():
    assert registry.select_variants(VARIANTS, ["all", "fast"]) == VARIANTS
    with pytest.raises(KeyError, match="unknown variant.s. bogus; known: all, torch, fast, wrong, extra"):
        registry.select_variants(VARIANTS, ["bogus"])


def test_select_variants():
    assert [v.name for v in registry.select_variants(VARIANTS, None)] == ["torch", "fast", "wrong"]
    assert [v.name for v in registry.select_variants(VARIANTS, ["fast"])] == ["torch", "fast"]  # baseline kept
    assert [v.name for v in registry.select_variants(VARIANTS, ["all"])] == ["torch", "fast", "wrong", "extra"]
    with pytest.raises(KeyError, match="nope"):
        registry.select_variants(VARIANTS, ["nope"])


def test_case_order_is_shuffled_by_seed_but_inputs_are_not():
    op = _toy_op(VARIANTS)
    shapes = [(i, 2, 3) for i in range(1, 9)]
    first = sweep.plan_cases([op], ["float32"], shapes, seed=1)
    again = sweep.plan_cases([op], ["float32"], shapes, seed=1)
    other = sweep.plan_cases([op], ["float32"], shapes, seed=2)
    assert [c.shape for c in first] == [c.shape for c in again]
    assert [c.shape for c in first] != [c.shape for c in other]
    assert sorted(c.shape for c in first) == sorted(shapes)
    assert sweep.case_seed(0, "toy", (1, 2, 3), "float32", "check") != sweep.case_seed(0, "toy", (1, 2, 3),
                                                                                           "float32", "time0")
    with pytest.raises(ValueError, match="3 numbers"):
        sweep.plan_cases([op], ["float32"], [(1, 2)], seed=0)
    assert sweep.plan_cases([op], ["float16"], None, seed=0) == []  # a dtype the op lacks
    assert [c.shape for c in sweep.plan_cases([op], ["float32"], None, seed=0, small=True)] == [(3, 3, 3)]


def test_wrong_variants_are_reported_and_never_timed(monkeypatch):
    timed = []

    def fake_time_events(fn, input_sets, *, warmup, samples, flush):
        timed.append(fn)
        ms = 2.0 if fn is VARIANTS[0].run else 1.0  # torch 2 ms, others 1 ms
        return timing.TimingResult([ms] * samples, "events", "cold", 1, len(input_sets))

    monkeypatch.setattr(timing, "time_events", fake_time_events)
    monkeypatch.setattr(timing, "L2Flusher", lambda device, l2: (lambda: None))
    op = _toy_op(VARIANTS)
    settings = sweep.SweepSettings(dtypes=["float32"], samples=3)
    ceilings = {"source": "test", "compute_tflops": {"tf32": 1e-6}, "memory_gbps": 1e6}
    cases = sweep.plan_cases([op], ["float32"], None, seed=3)
    results = sweep.run(cases, settings, ceilings, l2_bytes=1 << 20)
    assert [c["shape"] for c in results] == [[8, 6, 5], [4, 4, 4]]  # the op's order, not the visiting order
    assert sorted(c["order"] for c in results) == [0, 1]
    for case in results:
        by_name = {v["name"]: v for v in case["variants"]}
        assert by_name["wrong"]["status"] == "wrong" and by_name["wrong"]["timing"] is None
        assert by_name["wrong"]["tflops"] is None
        assert by_name["fast"]["speedup_vs_torch"] == pytest.approx(2.0)
        assert by_name["torch"]["speedup_vs_torch"] == pytest.approx(1.0)
        assert by_name["fast"]["plan"] == {"config": "fast"}
        assert by_name["fast"]["roofline_fraction"] is not None
        flops = case["flops"]
        assert by_name["fast"]["tflops"] == pytest.approx(flops / 1e-3 / 1e12)
    assert VARIANTS[2].run not in timed
    summary = sweep.summarize_cases(results)
    assert summary["by_status"] == {"ok": 4, "wrong": 2, "unsupported": 0, "failed": 0}
    assert summary["timed"] == 4


@pytest.mark.parametrize("rounds,shares", [(1, [7]), (3, [3, 2, 2]), (7, [1] * 7)])
def test_rounds_let_the_variants_take_turns(monkeypatch, rounds, shares):
    calls = []

    def fake_time_events(fn, input_sets, *, warmup, samples, flush):
        name = next(v.name for v in VARIANTS if v.run is fn)
        calls.append((name, samples, warmup))
        return timing.TimingResult([float(len(calls))] * samples, "events", "cold", 1, len(input_sets))

    monkeypatch.setattr(timing, "time_events", fake_time_events)
    monkeypatch.setattr(timing, "L2Flusher", lambda device, l2: (lambda: None))
    op = _toy_op(VARIANTS)
    settings = sweep.SweepSettings(dtypes=["float32"], samples=7, warmup=5, rounds=rounds)
    results = sweep.run(sweep.plan_cases([op], ["float32"], [(4, 4, 4)], seed=0), settings, None, l2_bytes=1 << 20)
    timed = [v["name"] for v in results[0]["variants"] if v["status"] == "ok"]
    # Round by round, every timed variant once, forward then back; the wrong one never.
    assert [name for name, _, _ in calls] == [name for turn in range(rounds)
                                              for name in (timed if turn % 2 == 0 else timed[::-1])]
    assert [n for _, n, _ in calls] == [share for share in shares for _ in timed]
    assert [w for _, _, w in calls] == [5] * len(timed) + [2] * len(timed) * (rounds - 1)
    for variant in results[0]["variants"]:
        if variant["status"] == "ok":
            assert len(variant["timing"]["samples_ms"]) == 7


def test_check_only_times_nothing(monkeypatch):
    monkeypatch.setattr(timing, "time_events", lambda *a, **k: pytest.fail("timed in --check-only"))
    op = _toy_op(VARIANTS)
    settings = dataclasses.replace(sweep.SweepSettings(dtypes=["float32"]), check_only=True)
    results = sweep.run(sweep.plan_cases([op], ["float32"], None, seed=0), settings, None, None)
    assert all(v["timing"] is None for c in results for v in c["variants"])


def test_matmul_entry_counts():
    from tilelab.bench import op_matmul

    assert op_matmul.flops((127, 255, 65)) == 2 * 127 * 255 * 65
    assert op_matmul.bytes_moved((2, 3, 4), torch.float16) == 2 * (2 * 4 + 4 * 3 + 2 * 3)
    shapes = set(op_matmul.DEFAULT_SHAPES)
    for required in [(512, 512, 512), (8192, 8192, 8192), (4096, 11008, 4096), (8192, 8192, 1024),
                     (16, 4096, 4096), (128, 4096, 4096), (127, 255, 65), (1000, 1000, 1000)]:
        assert required in shapes
    a, b = op_matmul.make_inputs((3, 4, 5), torch.float16, "cpu", torch.Generator().manual_seed(0))
    assert a.shape == (3, 5) and b.shape == (5, 4) and a.dtype == torch.float16
    assert float(a.abs().sum()) > 0 and float(b.abs().sum()) > 0  # random, not zeros
    again, _ = op_matmul.make_inputs((3, 4, 5), torch.float16, "cpu", torch.Generator().manual_seed(1))
    assert not torch.equal(a, again)


def test_a_broken_case_stops_the_sweep_but_keeps_what_finished():
    op = _toy_op(VARIANTS)

    def make_inputs(shape, dtype, device, g):
        if shape == (4, 4, 4):
            raise RuntimeError("CUDA error: an illegal memory access was encountered")
        return op.make_inputs(shape, dtype, device, g)

    broken = dataclasses.replace(op, make_inputs=make_inputs)
    settings = sweep.SweepSettings(dtypes=["float32"], check_only=True)
    cases = sweep.plan_cases([broken], ["float32"], None, seed=0)
    cases.sort(key=lambda c: c.canonical_index)  # (8, 6, 5) first, then the broken one
    with pytest.raises(sweep.SweepAborted) as stopped:
        sweep.run(cases, settings, None, None)
    assert [c["shape"] for c in stopped.value.cases] == [[8, 6, 5]]
    assert stopped.value.reason.startswith("toy 4x4x4 float32 failed: RuntimeError: CUDA error: an illegal memory")


def test_cold_graph_timing_rotates_input_sets(monkeypatch):
    seen = []

    def fake_time_graph(fn, input_sets, *, warmup, samples, calls, cache):
        seen.append((len(input_sets), calls))
        return timing.TimingResult([0.5] * samples, "graph", cache, calls, len(input_sets))

    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda device=None: (8 << 30, 16 << 30))
    monkeypatch.setattr(timing, "estimate_call_ms", lambda fn, inputs: 0.01)
    monkeypatch.setattr(timing, "time_graph", fake_time_graph)
    op = _toy_op(VARIANTS[:2])
    settings = sweep.SweepSettings(dtypes=["float32"], timing="graph", cache="cold", samples=4)
    results = sweep.run(sweep.plan_cases([op], ["float32"], [(8, 6, 5)], seed=0), settings, None, l2_bytes=1 << 20)
    sets, calls = seen[0]
    assert sets == timing.MAX_INPUT_SETS  # a tiny problem: as many sets as allowed
    assert calls % sets == 0
    t = results[0]["variants"][1]["timing"]
    assert t["mode"] == "graph" and t["input_sets"] == sets and t["calls_per_sample"] == calls


def test_time_budget_and_checkpoints():
    op = _toy_op(VARIANTS)
    settings = sweep.SweepSettings(dtypes=["float32"], check_only=True)
    cases = sweep.plan_cases([op], ["float32"], [(i, 2, 3) for i in range(1, 6)], seed=0)
    seen = []
    results = sweep.run(cases, settings, None, None, checkpoint=lambda finished: seen.append(len(finished)))
    assert seen == [1, 2, 3, 4, 5] and len(results) == 5
    with pytest.raises(sweep.SweepAborted, match="time budget") as stopped:
        sweep.run(cases, settings, None, None, time_budget_s=-1.0)
    assert stopped.value.cases == []


def test_aligned_variants_copy_each_input_set_once():
    """`tilelab-aligned` / `torch-aligned`: the copy into line-aligned rows is made once per input set (not inside
    the timed calls), made again when a tensor changes in place, and dropped when another case begins."""
    from tilelab.bench.op_matmul import _kept_aligned

    aligned = _kept_aligned()
    a, b = torch.randn(1000, 100).half(), torch.randn(100, 300).half()
    first = aligned(a, b)
    assert aligned(a, b) is first  # reused: nothing copied again
    assert all(tilelab.rows_aligned(x) and torch.equal(x, y) for x, y in zip(first, (a, b), strict=True))
    other_set = (torch.randn(1000, 100).half(), torch.randn(100, 300).half())
    second = aligned(*other_set)
    assert aligned(a, b) is first and aligned(*other_set) is second  # the case's input sets are all kept
    a.add_(1)  # changed in place: a new copy, with the new values
    third = aligned(a, b)
    assert third is not first and torch.equal(third[0], a)
    aligned(torch.randn(8, 8), torch.randn(8, 8))  # another case
    assert aligned(*other_set) is not second
