"""Does a kernel slow down when it runs for longer? fp8 8192^3 and fp16 8192^3, ours against torch (run on the H200).

    PYTHONPATH=src:. python scripts/h200_sustained_probe.py

The fp8 tuning pass measured our kernel at torch's speed; the sweep right after measured it 10% slower while
torch held its rate. Here each contender runs in rounds of back-to-back calls (events, cold L2, as kernel-bench
times them), alternating, and every round reports its median and the SM clock and power NVML sees at its end.
Also: the time of the tf32 path's K-major copy of B alone, which docs/PERFORMANCE.md estimated.
"""

import statistics

import torch

from tilelab import tuning
from tilelab.bench import timing
from tilelab.ops import matmul as matmul_op
from tilelab.ops.scaled_matmul import scaled_matmul


def _nvml() -> str:
    try:
        return f"{torch.cuda.clock_rate()} MHz {torch.cuda.power_draw() / 1000:.0f} W"
    except Exception as error:  # pynvml missing, or no permission: the timings still stand
        return f"(no NVML: {type(error).__name__})"


def rounds(contenders: dict, calls: int = 60, repeats: int = 3) -> None:
    flush = tuning._flusher(torch.cuda.current_device())
    for r in range(repeats):
        for name, fn in contenders.items():
            result = timing.time_events(fn, [()], warmup=3, samples=calls, flush=flush, head_start_ms_per_sample=0.2)
            samples = result.samples_ms
            print(f"  round {r} {name:22s} median {statistics.median(samples):.4f} ms  first10 "
                  f"{statistics.median(samples[:10]):.4f}  last10 {statistics.median(samples[-10:]):.4f}  {_nvml()}",
                  flush=True)


def main() -> None:
    n = 8192
    a8 = torch.randn(n, n, device="cuda").to(torch.float8_e4m3fn)
    b8 = torch.randn(n, n, device="cuda").to(torch.float8_e4m3fn).t()
    one = torch.ones((), device="cuda")
    print("fp8 8192^3, fast accumulation, bf16 out", flush=True)
    rounds({
        "torch._scaled_mm": lambda: torch._scaled_mm(a8, b8, one, one, out_dtype=torch.bfloat16, use_fast_accum=True),
        "tilelab.scaled_matmul": lambda: scaled_matmul(a8, b8, one, one, use_fast_accum=True),
    })
    a16 = torch.randn(n, n, device="cuda", dtype=torch.float16)
    b16 = torch.randn(n, n, device="cuda", dtype=torch.float16)
    print("fp16 8192^3", flush=True)
    rounds({"torch.mm": lambda: torch.mm(a16, b16), "tilelab.matmul": lambda: matmul_op.matmul(a16, b16)})
    b32 = torch.randn(1, 4096, 4096, device="cuda")
    copy_ms = tuning.measure_ms(lambda: matmul_op.transposed_copy(b32))
    print(f"tf32 K-major copy of a 4096x4096 float32 B: {copy_ms * 1e3:.1f} us "
          f"({2 * b32.numel() * 4 / (copy_ms * 1e-3) / 1e12:.2f} TB/s read + write)", flush=True)


if __name__ == "__main__":
    main()
