"""Does a torch.profiler session leave launches slower afterwards? (run on the H200)

    PYTHONPATH=src:. python scripts/h200_profiler_overhead.py

kernel-bench --torch-kernels profiles one torch call per case before timing. If CUPTI stayed subscribed after
the profiler closed, every later launch (torch's and tilelab's) would cost more host time. This times the host
side of 2000 small launches of each, before and after one profiled call.
"""

import time

import torch

import tilelab
from tilelab.bench.kernels import launched_kernels


def host_us(fn, calls=2000) -> float:
    for _ in range(50):
        fn()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    elapsed = time.perf_counter() - start
    torch.cuda.synchronize()
    return elapsed / calls * 1e6


def main() -> None:
    a = torch.randn(127, 65, device="cuda", dtype=torch.float16)
    b = torch.randn(65, 255, device="cuda", dtype=torch.float16)
    calls = {"torch.mm": lambda: torch.mm(a, b), "tilelab.matmul": lambda: tilelab.matmul(a, b)}
    before = {name: min(host_us(fn) for _ in range(3)) for name, fn in calls.items()}
    print("kernels of one torch.mm:", launched_kernels(torch.mm, a, b))
    after = {name: min(host_us(fn) for _ in range(3)) for name, fn in calls.items()}
    for name in calls:
        print(f"{name:15s} host time per call: {before[name]:6.2f} us before a profiled call, "
              f"{after[name]:6.2f} us after ({after[name] / before[name]:.3f}x)")


if __name__ == "__main__":
    main()
