"""Where the small default shapes spend their time, kernel by kernel (run on the H200, under Nsight Compute).

    ncu --profile-from-start off --clock-control none --section ... \
        python scripts/h200_small_anatomy_probe.py [--dtype float16]

kernel-bench times 127x255x65, 512^3, 1000^3, 1024^3 and 2048^3 at 5-29 us a call, of which about 3 us is an empty
kernel's (events after an L2 flush, `results/h200-tiny-floor-probe.log`). This runs each shape once through
torch.mm and once through tilelab.matmul's default inside cudaProfilerStart/Stop, after warm-up calls outside
it, so Nsight Compute sees one launch of each kernel: its duration on the GPU alone, and where its warps stall.
An empty Triton kernel comes first, as the floor. Without ncu it prints the kernels' names and event times.
"""

import argparse

import torch
import triton

import tilelab

SHAPES = [(127, 255, 65), (512, 512, 512), (1000, 1000, 1000), (1024, 1024, 1024), (2048, 2048, 2048)]


@triton.jit
def empty_kernel(x_ptr):
    pass


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dtype", default="float16", choices=["float16", "bfloat16"])
    args = parser.parse_args()
    dtype = getattr(torch, args.dtype)
    torch.manual_seed(0)
    scratch = torch.empty(1, device="cuda")
    calls = [("empty Triton kernel", None, lambda: empty_kernel[(1,)](scratch))]
    for m, n, k in SHAPES:
        a = torch.randn(m, k, device="cuda", dtype=dtype)
        b = torch.randn(k, n, device="cuda", dtype=dtype)
        calls.append((f"{m}x{n}x{k} torch.mm", (a, b), lambda a=a, b=b: torch.mm(a, b)))
        calls.append((f"{m}x{n}x{k} tilelab", (a, b), lambda a=a, b=b: tilelab.matmul(a, b)))
    for name, operands, fn in calls:  # compile, tune from the shipped table, check
        for _ in range(3):
            out = fn()
        if operands is not None:
            reference = operands[0].double() @ operands[1].double()
            error = ((out.double() - reference).norm() / reference.norm()).item()
            print(f"{name}: relative error {error:.1e}", flush=True)
    torch.cuda.synchronize()
    flush = torch.empty(2 * torch.cuda.get_device_properties(0).L2_cache_size, dtype=torch.int8, device="cuda")
    torch.cuda.cudart().cudaProfilerStart()
    for name, _, fn in calls:
        torch.cuda.nvtx.range_push(name)
        fn()
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
    torch.cuda.cudart().cudaProfilerStop()
    for name, _, fn in calls:  # the order ncu saw them in, and the kernel-bench measure of each
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        times = []
        for _ in range(30):
            flush.zero_()
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end) * 1000)
        print(f"{name:28s} events, cold L2: median {sorted(times)[15]:6.2f} us", flush=True)


if __name__ == "__main__":
    main()
