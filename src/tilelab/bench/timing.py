"""Timing one call on the GPU, two ways, with the L2 either warm or cold.

events  CUDA events recorded around each call: one sample per call. Includes
        the kernel(s) and any gap while the GPU waits for the CPU to launch
        them; a head start (a GPU sleep before the samples) lets the CPU queue
        calls ahead so that gap only appears when one Python call costs more
        CPU time than its kernels take on the GPU.
graph   N calls captured once in a CUDA graph; a sample is one replay timed
        with events, divided by N. No Python, no launch overhead: what the
        GPU needs back to back.

Cold cache: with events, a buffer twice the L2 size is written before each
call, outside the timed region. A graph cannot flush between its calls
without timing the flush, so it rotates through enough input sets that
together span twice the L2: each call's operands were evicted by the others.
"""

import dataclasses
import math
from collections.abc import Callable, Sequence

import torch


def in_turn(items: Sequence, turn: int) -> Sequence:
    """`items` in the order they take turn number `turn` when contenders take turns against clock drift:
    forward on even turns, back on odd ones (`kernel-bench --rounds`, `tilelab.tuning.choose`)."""
    return items if turn % 2 == 0 else items[::-1]


# Graph mode aims for replays of at least this long, so event resolution (~0.5 us) is negligible.
GRAPH_TARGET_MS = 2.0
MAX_GRAPH_CALLS = 500
MAX_INPUT_SETS = 128
# Each queued event-mode sample gets this much GPU head start (ms): enough for one Python launch.
HEAD_START_MS_PER_SAMPLE = 0.1
MAX_HEAD_START_MS = 100.0


@dataclasses.dataclass
class TimingResult:
    samples_ms: list[float]  # per call
    mode: str  # "events" | "graph"
    cache: str  # "warm" | "cold"
    calls_per_sample: int
    input_sets: int


def input_sets_for_cold_graph(bytes_per_set: int, l2_bytes: int, memory_budget: int) -> int:
    """How many distinct input sets a graph must rotate through so each call finds a cold L2."""
    if bytes_per_set <= 0:
        raise ValueError("bytes_per_set must be positive")
    wanted = math.ceil(2 * l2_bytes / bytes_per_set) + 1  # +1: the set just used must be evicted too
    affordable = max(1, memory_budget // bytes_per_set)
    return max(1, min(wanted, affordable, MAX_INPUT_SETS))


def graph_calls(call_ms: float, input_sets: int, requested: int = 0) -> int:
    """Calls per captured graph: as asked, else enough for GRAPH_TARGET_MS, and a whole rotation."""
    if requested > 0:
        calls = requested
    else:
        calls = math.ceil(GRAPH_TARGET_MS / max(call_ms, 1e-4))
    calls = max(1, min(calls, MAX_GRAPH_CALLS))
    # Round up to whole rotations so every input set is used equally often.
    return math.ceil(calls / input_sets) * input_sets


class L2Flusher:
    """Writes a buffer twice the L2 size: whatever a call read before is evicted."""

    def __init__(self, device: torch.device, l2_bytes: int):
        self.buffer = torch.empty(max(2 * l2_bytes, 1 << 20), dtype=torch.int8, device=device)

    def __call__(self) -> None:
        self.buffer.zero_()


def _head_start(samples: int, ms_per_sample: float = HEAD_START_MS_PER_SAMPLE) -> None:
    """Keep the GPU busy while the CPU queues the samples, so launch gaps are not timed."""
    sleep = getattr(torch.cuda, "_sleep", None)
    if sleep is None:
        return
    ms = min(samples * ms_per_sample, MAX_HEAD_START_MS)
    sleep(int(ms * 1e-3 * 2e9))  # cycles at ~2 GHz; a slower clock only sleeps longer


def time_events(fn: Callable, input_sets: Sequence[tuple], *, warmup: int, samples: int,
                flush: Callable[[], None] | None,
                head_start_ms_per_sample: float = HEAD_START_MS_PER_SAMPLE) -> TimingResult:
    """One CUDA-event pair around each call; `flush` (if any) runs before each, untimed.

    `head_start_ms_per_sample`: GPU sleep queued first, per sample; it must exceed one call's CPU time
    (Triton's un-replayed launch path needs ~0.1-0.2 ms) or the gaps between launches get timed.
    """
    for i in range(warmup):
        fn(*input_sets[i % len(input_sets)])
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(samples)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(samples)]
    _head_start(samples, head_start_ms_per_sample)
    for i in range(samples):
        if flush is not None:
            flush()
        starts[i].record()
        fn(*input_sets[i % len(input_sets)])
        ends[i].record()
    torch.cuda.synchronize()
    return TimingResult(
        samples_ms=[s.elapsed_time(e) for s, e in zip(starts, ends, strict=True)],
        mode="events",
        cache="cold" if flush is not None else "warm",
        calls_per_sample=1,
        input_sets=len(input_sets),
    )


def time_graph(fn: Callable, input_sets: Sequence[tuple], *, warmup: int, samples: int, calls: int,
               cache: str) -> TimingResult:
    """Capture `calls` calls (rotating input sets) in a CUDA graph; time replays; per call = replay / calls."""
    # Warm up on a side stream, as graph capture requires (and so autotuning happens before capture).
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for i in range(max(warmup, 1)):
            fn(*input_sets[i % len(input_sets)])
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()

    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for i in range(calls):
            fn(*input_sets[i % len(input_sets)])
    graph.replay()  # the first replay uploads the graph; not a sample
    torch.cuda.synchronize()

    starts = [torch.cuda.Event(enable_timing=True) for _ in range(samples)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(samples)]
    for i in range(samples):
        starts[i].record()
        graph.replay()
        ends[i].record()
    torch.cuda.synchronize()
    per_call = [s.elapsed_time(e) / calls for s, e in zip(starts, ends, strict=True)]
    del graph
    return TimingResult(per_call, "graph", cache, calls, len(input_sets))


def estimate_call_ms(fn: Callable, inputs: tuple, repeats: int = 5) -> float:
    """A rough per-call time (median of a few event-timed calls), for sizing graphs."""
    fn(*inputs)
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn(*inputs)
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return sorted(times)[len(times) // 2]
