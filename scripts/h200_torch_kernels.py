"""Which kernels torch runs for the benchmark's cases (run on the H200): names, grid sizes and times.

    PYTHONPATH=src:. python scripts/h200_torch_kernels.py [--shape M N K ...]

With --shape, only those fp16 and bf16 products (repeatable); without, the default shapes, tf32 and fp8.

cuBLAS kernel names carry the tile, the cluster shape, split-K or stream-K, and the layout, so they say
what tilelab is measured against. One profiled call per case, after a warm-up call.
"""

import argparse

import torch
from torch.profiler import ProfilerActivity, profile

from tilelab.bench.op_matmul import DEFAULT_SHAPES


def kernels_of(fn) -> list[tuple[str, float]]:
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    return [(e.name, e.device_time) for e in prof.events() if e.device_type.name == "CUDA"]


def show(title: str, fn) -> None:
    print(title, flush=True)
    for name, us in kernels_of(fn):
        print(f"    {us:9.1f} us  {name[:220]}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--shape", nargs=3, type=int, action="append", metavar=("M", "N", "K"))
    args = parser.parse_args()
    for dtype in (torch.float16, torch.bfloat16):
        for m, n, k in args.shape or DEFAULT_SHAPES:
            a = torch.randn(m, k, device="cuda", dtype=dtype)
            b = torch.randn(k, n, device="cuda", dtype=dtype)
            show(f"torch.mm {m}x{n}x{k} {dtype}", lambda a=a, b=b: torch.mm(a, b))
    if args.shape:
        return
    torch.backends.cuda.matmul.allow_tf32 = True
    for size in (1000, 4096, 8192):
        a = torch.randn(size, size, device="cuda")
        b = torch.randn(size, size, device="cuda")
        show(f"torch.mm {size}^3 float32, TF32 allowed", lambda a=a, b=b: torch.mm(a, b))
    a = torch.randn(8192, 8192, device="cuda").to(torch.float8_e4m3fn)
    b = torch.randn(8192, 8192, device="cuda").to(torch.float8_e4m3fn).t()
    one = torch.ones((), device="cuda")
    show("torch._scaled_mm 8192^3 e4m3, fast accumulation",
         lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16, use_fast_accum=True))


if __name__ == "__main__":
    main()
