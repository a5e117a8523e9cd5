"""128x1000x8192: why did fp16's split-K take 950 us where bf16's same configuration took 17? (run on the H200)

    PYTHONPATH=src:. python scripts/h200_splitk_anomaly_probe.py

Call III (results/h200-splitk-align-probe.log) timed this shape first in its process: fp16 at 949.7 us (888.0
without the ALIGN hint), then bf16 at 17.3 us (43.8), with the same tuned configuration. This runs bf16
first, then fp16, then bf16 again, and for each prints the kernels one call launches with their device
times (torch.profiler), the host time of one planned call, and the median in turns with torch.
"""

import time

import torch
from torch.profiler import ProfilerActivity, profile

import tilelab
from scripts.turns import report_in_turns
from tilelab.ops import matmul as matmul_op
from tilelab.ops.matmul import describe_plan


def planned(a, b):
    def run():
        matmul_op._REPLAYS.clear()
        return tilelab.matmul(a, b)
    return run


def device_times(fn) -> list[str]:
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    return [f"{e.device_time:8.1f} us {e.name[:90]}" for e in prof.events() if e.device_type.name == "CUDA"]


def host_us(fn, calls: int = 20) -> float:
    torch.cuda.synchronize()
    started = time.perf_counter()
    for _ in range(calls):
        fn()
    elapsed = time.perf_counter() - started
    torch.cuda.synchronize()
    return elapsed / calls * 1e6


def main() -> None:
    m, n, k = 128, 1000, 8192
    for dtype in (torch.bfloat16, torch.float16, torch.bfloat16):
        a = torch.randn(m, k, device="cuda").to(dtype)
        b = torch.randn(k, n, device="cuda").to(dtype)
        run = planned(a, b)
        report_in_turns(f"== {m}x{n}x{k} {dtype}", {"torch": lambda a=a, b=b: torch.mm(a, b), "default": run,
                                                      "replayed": lambda a=a, b=b: tilelab.matmul(a, b)}, 10)
        plan = describe_plan(a, b)
        print(f"  plan: {plan['path']} {plan['config']}", flush=True)
        print(f"  host time of a planned call: {host_us(run):.1f} us; replayed: "
              f"{host_us(lambda a=a, b=b: tilelab.matmul(a, b)):.1f} us", flush=True)
        for line in device_times(run):
            print("   ", line, flush=True)


if __name__ == "__main__":
    main()
