"""Sizing decisions of the GPU timers, which are pure arithmetic and testable here."""

from tilelab.bench import timing

MiB = 2**20


def test_cold_graph_rotates_enough_sets_to_span_twice_the_l2():
    l2 = 60 * MiB
    small = 3 * 512 * 512 * 2  # a 512^3 fp16 problem: 1.5 MiB
    sets = timing.input_sets_for_cold_graph(small, l2, memory_budget=10 * 2**30)
    assert sets * small >= 2 * l2
    # a problem bigger than the L2 needs little rotation
    big = 3 * 8192 * 8192 * 2
    assert timing.input_sets_for_cold_graph(big, l2, memory_budget=10 * 2**30) <= 2


def test_cold_graph_respects_memory_and_the_cap():
    assert timing.input_sets_for_cold_graph(MiB, 60 * MiB, memory_budget=4 * MiB) == 4
    assert timing.input_sets_for_cold_graph(1, 60 * MiB, memory_budget=2**40) == timing.MAX_INPUT_SETS
    assert timing.input_sets_for_cold_graph(10**12, 60 * MiB, memory_budget=1) == 1


def test_graph_calls_cover_the_target_time_in_whole_rotations():
    assert timing.graph_calls(call_ms=0.01, input_sets=1) == 200  # 2 ms of 10 us calls
    assert timing.graph_calls(call_ms=5.0, input_sets=1) == 1
    calls = timing.graph_calls(call_ms=0.01, input_sets=7)
    assert calls % 7 == 0 and calls >= 200
    assert timing.graph_calls(call_ms=1e-9, input_sets=1) == timing.MAX_GRAPH_CALLS
    assert timing.graph_calls(call_ms=1.0, input_sets=3, requested=10) == 12
