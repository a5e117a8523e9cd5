"""One GPU call's worth of tuning and comparison for the matmul family (run on the H200).

    TILELAB_CACHE_DIR=$OUT/cache PYTHONPATH=src:. python scripts/h200_probe.py [--quick]

Tunes every shape below for each dtype and path (the winners land in the
tuning cache, which becomes the shipped table `src/tilelab/tuned/h200.json`),
then times the tuned kernels against torch.mm in the same process and prints
ratios. Writes `probe.json` next to the cache.
"""

import argparse
import json
import os
import time

import torch
import triton

import tilelab
from tilelab.ops.matmul import describe_plan
from tilelab.reference import matmul_reference, relative_error, tolerance

SHAPES = [  # M, N, K
    (512, 512, 512), (1024, 1024, 1024), (2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192),
    (4096, 11008, 4096), (8192, 8192, 1024), (16, 4096, 4096), (128, 4096, 4096), (127, 255, 65),
    (1000, 1000, 1000),
]


def bench(fn) -> float:
    return triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dtypes", default="float16,bfloat16")
    parser.add_argument("--paths", default="pointer,descriptor")
    parser.add_argument("--shapes", default="")
    args = parser.parse_args()
    shapes = [tuple(map(int, s.split("x"))) for s in args.shapes.split(",") if s] or SHAPES
    rows = []
    for dtype_name in args.dtypes.split(","):
        dtype = getattr(torch, dtype_name)
        for m, n, k in shapes:
            a = torch.randn(m, k, device="cuda").to(dtype)
            b = torch.randn(k, n, device="cuda").to(dtype)
            ref = matmul_reference(a, b) if m * n * k <= 2**33 else None
            t_torch = bench(lambda a=a, b=b: torch.mm(a, b))
            flops = 2 * m * n * k
            row = {"dtype": dtype_name, "shape": [m, n, k], "torch_ms": t_torch,
                   "torch_tflops": flops / t_torch / 1e9, "variants": {}}
            for path in args.paths.split(","):
                start = time.perf_counter()
                try:
                    out = tilelab.matmul(a, b, path=path)  # tunes on first sight
                except tilelab.ContractError as exc:
                    row["variants"][path] = {"error": str(exc)}
                    continue
                tune_s = time.perf_counter() - start
                err = relative_error(out, ref) if ref is not None else None
                t = bench(lambda a=a, b=b, path=path: tilelab.matmul(a, b, path=path))
                row["variants"][path] = {
                    "ms": t, "tflops": flops / t / 1e9, "vs_torch": t_torch / t, "rel_error": err,
                    "ok": err is None or err <= tolerance(dtype), "tune_s": tune_s,
                    "plan": describe_plan(a, b, path=path),
                }
            rows.append(row)
            cells = "  ".join(f"{p}: {v['tflops']:6.1f} ({v['vs_torch']:.2f}x{'' if v['ok'] else ' WRONG'})"
                              for p, v in row["variants"].items() if "tflops" in v)
            print(f"{dtype_name:9s} {m:5d}x{n:5d}x{k:5d} torch {row['torch_tflops']:6.1f} TFLOP/s  {cells}",
                  flush=True)
    out_dir = os.environ.get("TILELAB_CACHE_DIR", ".")
    with open(os.path.join(out_dir, "probe.json"), "w") as f:
        json.dump({"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "triton": triton.__version__,
                   "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
