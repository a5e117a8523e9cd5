"""Long K over a small output (a weight gradient's shape): what every path's candidates measure (run on the H200).

    TILELAB_SHIPPED_TUNING=0 TILELAB_CACHE_DIR=DIR PYTHONPATH=src:. python scripts/h200_long_k_tuning_probe.py

Tunes each shape, fp16, on the default path (split-K here), the descriptor path and the persistent path, with
split-K also offered 3 slices, then prints each path's fastest candidates from the tuning cache (cold L2,
tuning.measure_ms) and torch.matmul's time measured the same way. `--default-only` tunes the default path
alone; `--tma-min-m` replaces matmul_hopper.SPLIT_K_TMA_MIN_M (0: split-K always reads through TMA).
"""

import argparse
import dataclasses
import json
import os
from pathlib import Path

import torch
import triton

from tilelab import tuning
from tilelab.ops import matmul_hopper
from tilelab.ops.matmul import pretune

SHAPES = [(1024, 1024, 4096), (1024, 1024, 8192), (768, 768, 16384), (512, 512, 8192), (1000, 1000, 4000)]
MORE_SHAPES = [(256, 4096, 4096), (256, 1024, 8192), (512, 1024, 8192), (128, 4096, 4096), (16, 4096, 4096)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--default-only", action="store_true")
    parser.add_argument("--tma-min-m", type=int, default=None)
    parser.add_argument("--more", action="store_true", help="also M of 16-512 (skinny and mid)")
    args = parser.parse_args()
    if args.tma_min_m is not None:
        matmul_hopper.SPLIT_K_TMA_MIN_M = args.tma_min_m
    if not any(c.split_k == 3 for c in matmul_hopper.SPLIT_K_CANDIDATES):  # before the library offered 3
        unsplit = [c for c in matmul_hopper.SPLIT_K_CANDIDATES if c.split_k == 1]
        matmul_hopper.SPLIT_K_CANDIDATES += tuple(dataclasses.replace(c, split_k=3) for c in unsplit)
    paths = (None,) if args.default_only else (None, "descriptor", "persistent")
    for shape in SHAPES + (MORE_SHAPES if args.more else []):
        print(json.dumps(pretune([shape], (torch.float16,), paths=paths)), flush=True)
        m, n, k = shape
        a = torch.randn(m, k, device="cuda").half()
        b = torch.randn(k, n, device="cuda").half()
        torch_ms = tuning.measure_ms(lambda a=a, b=b: torch.matmul(a, b))
        print(f"{m}x{n}x{k}: torch {torch_ms * 1e3:.1f} us ({2 * m * n * k / torch_ms / 1e9:.0f} TFLOP/s)",
              flush=True)
    cache = json.loads(Path(os.environ["TILELAB_CACHE_DIR"], f"tuning-triton{triton.__version__}.json").read_text())
    for key, entry in sorted(cache["entries"].items()):
        if "config" not in entry:
            continue  # not a tuning winner
        timings = sorted(entry.get("timings_ms", {}).items(), key=lambda item: item[1])
        print(key, "->", json.dumps(entry["config"]))
        for name, ms in timings[:8]:
            print(f"    {name:32s} {ms * 1e3:7.1f} us")


if __name__ == "__main__":
    main()
