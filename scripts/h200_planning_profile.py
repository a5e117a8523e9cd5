"""Where the host time of a planned (not replayed) tilelab.matmul call goes (run on the H200).

    PYTHONPATH=src:. python scripts/h200_planning_profile.py

Call JJJ (results/h200-splitk-anomaly-probe.log) measured 489-753 us of host time for a planned split-K call
at 128x1000x8192, against 19-32 us replayed. A planned call happens once per new shape, dtype and stride
pattern, and for every call made while replays are off. This prints each path's host time per planned
call and the functions cProfile charges most to it.
"""

import cProfile
import pstats
import time

import torch

import tilelab
from tilelab.ops import matmul as matmul_op

CASES = [("split-K", (128, 1000, 8192)), ("split-K, 16-aligned", (128, 1024, 8192)), ("descriptor", (1000, 1000, 1000)),
         ("persistent", (4096, 4096, 4096)), ("pointer", (127, 255, 65))]


def planned(a, b):
    def run():
        matmul_op._REPLAYS.clear()
        return tilelab.matmul(a, b)
    return run


def main() -> None:
    for name, (m, n, k) in CASES:
        a = torch.randn(m, k, device="cuda", dtype=torch.float16)
        b = torch.randn(k, n, device="cuda", dtype=torch.float16)
        run = planned(a, b)
        for _ in range(3):  # compile and tune
            run()
        torch.cuda.synchronize()
        started = time.perf_counter()
        for _ in range(50):
            run()
        per_call = (time.perf_counter() - started) / 50 * 1e6
        torch.cuda.synchronize()
        print(f"== {name} {m}x{n}x{k}: {per_call:.1f} us per planned call "
              f"({matmul_op.describe_plan(a, b)['path']})", flush=True)
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(50):
            run()
        profiler.disable()
        torch.cuda.synchronize()
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(18)


if __name__ == "__main__":
    main()
