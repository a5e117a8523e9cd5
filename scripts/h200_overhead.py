"""Host overhead of one tilelab.matmul call against torch.mm, eager and in a CUDA graph (run on the GPU).

    PYTHONPATH=src:. python scripts/h200_overhead.py [--rounds 10]

Eager time is wall time per call over a run of calls, the CPU queuing ahead of the GPU: on these tiny
problems the host sets it. The host's speed drifts within a process too, so the variants take turns, a run
of calls each per round, and each keeps its median round (the first sessions timed each variant once, one
after the other). Python's garbage collector runs once before the turns: compiling leaves many objects
behind, and a collection that happens to fall inside one variant's run would be charged to it alone.
"""

import argparse
import cProfile
import gc
import pstats
import statistics
import time

import torch

import tilelab


def per_call_us(fn, calls=300) -> float:
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / calls * 1e6


def eager_in_turns(variants: dict, rounds: int, collect: bool = True) -> dict[str, float]:
    """Median per-call wall time of each variant over `rounds` rounds, the variants taking turns (forward, then
    back), after 50 warm-up calls each and one garbage collection (`collect`)."""
    for fn in variants.values():
        for _ in range(50):
            fn()
    if collect:
        gc.collect()
    samples = {name: [] for name in variants}
    names = list(variants)
    for turn in range(rounds):
        for name in (names if turn % 2 == 0 else names[::-1]):
            samples[name].append(per_call_us(variants[name]))
    return {name: statistics.median(times) for name, times in samples.items()}


def graph_us(fn, calls=200, replays=20) -> float:
    fn()
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(calls):
            fn()
    graph.replay()
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(replays):
        graph.replay()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) * 1e3 / (calls * replays)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--no-collect", action="store_true", help="skip the garbage collection before the turns")
    args = parser.parse_args()
    rounds, collect = args.rounds, not args.no_collect
    for m, n, k in [(127, 255, 65), (128, 256, 64)]:
        a = torch.randn(m, k, device="cuda", dtype=torch.float16)
        b = torch.randn(k, n, device="cuda", dtype=torch.float16)
        variants = {"torch.mm": lambda a=a, b=b: torch.mm(a, b), "tilelab": lambda a=a, b=b: tilelab.matmul(a, b)}
        if (n * 2) % 16 == 0 and (k * 2) % 16 == 0:  # and the descriptor path's replay, descriptors built per call
            variants["tilelab-descriptor"] = lambda a=a, b=b: tilelab.matmul(a, b, path="descriptor")
        eager = eager_in_turns(variants, rounds, collect)
        for name, fn in variants.items():
            print(f"{m}x{n}x{k} {name:18s} eager {eager[name]:7.1f} us/call   graph {graph_us(fn):6.2f} us/call",
                  flush=True)
    # fp8: a replayed scaled_matmul against torch._scaled_mm (fast accumulation, bf16 out).
    from tilelab.ops.scaled_matmul import scaled_matmul

    a8 = torch.randn(128, 64, device="cuda").to(torch.float8_e4m3fn)
    b8 = torch.randn(256, 64, device="cuda").to(torch.float8_e4m3fn).t()
    one = torch.ones((), device="cuda")
    fp8 = {"torch._scaled_mm": lambda: torch._scaled_mm(a8, b8, one, one, out_dtype=torch.bfloat16,
                                                         use_fast_accum=True),
           "scaled_matmul": lambda: scaled_matmul(a8, b8, one, one, use_fast_accum=True)}
    eager = eager_in_turns(fp8, rounds, collect)
    for name, fn in fp8.items():
        print(f"128x256x64 fp8 {name:16s} eager {eager[name]:7.1f} us/call   graph {graph_us(fn):6.2f} us/call",
              flush=True)
    a = torch.randn(127, 65, device="cuda", dtype=torch.float16)
    b = torch.randn(65, 255, device="cuda", dtype=torch.float16)
    tilelab.matmul(a, b)
    # The pieces of one replayed call, each alone (CPU time: nothing here waits for the GPU).
    from tilelab.ops import bound_launch
    from tilelab.ops import matmul as matmul_op

    key = matmul_op._replay_key(a, b, None, None, None, None)
    replay = matmul_op._REPLAYS[key]
    device = a.device
    pieces = {
        "replay key": lambda: matmul_op._replay_key(a, b, None, None, None, None),
        "launch hooks check": bound_launch.no_launch_hooks,
        "torch.empty(device=)": lambda: torch.empty((127, 255), dtype=torch.float16, device=device),
        "a.new_empty": lambda: a.new_empty((127, 255)),
        "replay (empty + launch)": lambda: replay(a, b),
        "tilelab.matmul": lambda: tilelab.matmul(a, b),
        "torch.mm": lambda: torch.mm(a, b),
    }
    for name, fn in pieces.items():
        for _ in range(200):
            fn()
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(2000):
            fn()
        cpu_us = (time.perf_counter() - start) / 2000 * 1e6
        torch.cuda.synchronize()
        print(f"  {name:24s} {cpu_us:6.2f} us CPU per call", flush=True)
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(2000):
        tilelab.matmul(a, b)
    profile.disable()
    pstats.Stats(profile).sort_stats("tottime").print_stats(12)


if __name__ == "__main__":
    main()
