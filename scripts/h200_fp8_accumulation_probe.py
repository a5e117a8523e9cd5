"""How far does each fp8 accumulation stray as K grows? tilelab and torch._scaled_mm, fast and promoted (H200).

    PYTHONPATH=src:. python scripts/h200_fp8_accumulation_probe.py [--m 256 --n 256] [--k 256 1024 ...]
    TRITON_INTERPRET=1 PYTHONPATH=src:. python scripts/h200_fp8_accumulation_probe.py --smoke   # CPU: runs at all?

For every K, A [M, K] and B (stored [N, K], seen as [K, N]: K-major) are randn rounded to float8_e4m3fn,
the scales are 1 and the output is float32, so no output rounding hides the accumulator's. Against the
float64 product of the same fp8 values, for tilelab.scaled_matmul and torch._scaled_mm with use_fast_accum
True and False, it prints:
  rel_fro    ||C - exact||_F / ||exact||_F;
  max_bound  max over elements of |C - exact| / (|A| @ |B|): each element's error per unit of its own sum of
             |products| (the fuzz test's measure, tests/interpreter/test_fuzz_interpreter.py);
  bias       mean of (C - exact) * sign(exact) / mean of |A| @ |B|: below zero if the sum is truncated toward
             zero, about zero if it is rounded to nearest.
Then `python -m learning.explain fp8`'s model (learning/walkthroughs/fp8.py: a running sum kept to 13 fraction
bits, restarted every 128 products when promoted), rounded and truncated, on the first elements of C's first
row, next to what the GPU gave for the same elements.
"""

import argparse
import math
import platform
import sys
import time

import torch

KS = (256, 1024, 4096, 16384, 65536)
FP8 = torch.float8_e4m3fn


def variants(a, b, one):
    import tilelab

    found = {}
    for fast in (True, False):
        mode = "fast" if fast else "promoted"
        found[f"tilelab {mode}"] = lambda fast=fast: tilelab.scaled_matmul(
            a, b, one, one, out_dtype=torch.float32, use_fast_accum=fast)
        found[f"torch._scaled_mm {mode}"] = lambda fast=fast: torch._scaled_mm(
            a, b, scale_a=one, scale_b=one, out_dtype=torch.float32, use_fast_accum=fast)
    return found


def measures(c, exact, magnitude) -> str:
    error = c.double() - exact
    rel_fro = (error.norm() / exact.norm()).item()
    max_bound = (error.abs() / magnitude.clamp_min(1e-30)).max().item()
    bias = ((error * exact.sign()).mean() / magnitude.mean()).item()
    return f"{rel_fro:10.2e} {max_bound:10.2e} {bias:+10.2e}"


def model_rows(a, b, elements: int) -> dict:
    """The walkthrough's model on C[0, :elements]: relative Frobenius error of each running sum."""
    from learning.walkthroughs import fp8 as model

    row = a[0].double().cpu().tolist()
    columns = b[:, :elements].t().double().cpu().tolist()
    found = {}
    for name, rounding in (("rounded", round), ("truncated", math.trunc)):
        sums = [model.accumulate([x * y for x, y in zip(row, column, strict=True)], rounding=rounding)
                for column in columns]
        norm = math.sqrt(sum(s["exact"] ** 2 for s in sums))
        for kind in ("fast", "promoted"):
            error = math.sqrt(sum((s[kind] - s["exact"]) ** 2 for s in sums))
            found[f"model {kind}, {name}"] = error / norm
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--m", type=int, default=256)
    parser.add_argument("--n", type=int, default=256)
    parser.add_argument("--k", type=int, nargs="+", default=list(KS), help="multiples of 16")
    parser.add_argument("--elements", type=int, default=16, help="elements of C's first row for the model")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--smoke", action="store_true",
                        help="tiny shapes on Triton's interpreter (TRITON_INTERPRET=1, CPU): checks this script runs")
    args = parser.parse_args()
    if args.smoke:
        import os

        if os.environ.get("TRITON_INTERPRET") != "1":
            print("--smoke needs TRITON_INTERPRET=1 set before the script starts", file=sys.stderr)
            return 1
        device, args.m, args.n, args.k, args.elements = "cpu", 32, 32, [32, 64], 4
    elif not torch.cuda.is_available():
        print("h200_fp8_accumulation_probe.py needs a CUDA GPU (an H200); none here (or try --smoke)",
              file=sys.stderr)
        return 1
    else:
        device = "cuda"
    if any(k % 16 for k in args.k):
        parser.error("every K must be a multiple of 16 (TMA and torch._scaled_mm need it)")
    import triton

    from tilelab.ops.scaled_matmul import choose_config

    gpu = torch.cuda.get_device_name(0) if device == "cuda" else "none (interpreter)"
    capability = torch.cuda.get_device_capability(0) if device == "cuda" else None
    print(f"python {platform.python_version()}, torch {torch.__version__} (CUDA {torch.version.cuda}), "
          f"triton {triton.__version__}, GPU {gpu}, capability {capability}")
    print(f"M={args.m} N={args.n}, randn -> float8_e4m3fn, B K-major, scales 1, float32 out, seed {args.seed}")
    started = time.perf_counter()
    torch.manual_seed(args.seed)
    for k in args.k:
        a = torch.randn(args.m, k, device=device).to(FP8)
        b = torch.randn(args.n, k, device=device).to(FP8).t()  # [K, N], K-major
        one = torch.ones((), device=device)
        exact = a.double() @ b.double()
        magnitude = a.double().abs() @ b.double().abs()
        configs = ", ".join(f"{mode} {choose_config(a.device, torch.float32, args.m, args.n, k, fast).label()}"
                            for mode, fast in (("fast", True), ("promoted", False)))
        print(f"\n== K={k} (tilelab's tiles: {configs}); 2**-14 = {2**-14:.2e}, 2**-24 = {2**-24:.2e}")
        print(f"  {'variant':<28} {'rel_fro':>10} {'max_bound':>10} {'bias':>10}   C[0, :{args.elements}] rel_fro")
        first = exact[0, :args.elements]
        for name, run in variants(a, b, one).items():
            try:
                c = run()
                if device == "cuda":
                    torch.cuda.synchronize()
            except Exception as error:  # report and go on: one variant's failure is a result too
                print(f"  {name:<28} failed: {type(error).__name__}: {str(error).splitlines()[0][:120]}")
                continue
            own = ((c[0, :args.elements].double() - first).norm() / first.norm()).item()
            print(f"  {name:<28} {measures(c, exact, magnitude)}   {own:.2e}")
        for name, value in model_rows(a, b, args.elements).items():
            print(f"  {name:<28} {'':>32}   {value:.2e}")
    print(f"\n{time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
