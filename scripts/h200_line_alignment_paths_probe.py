"""Persistent or descriptor kernel, on rows that do or do not start on 128-byte lines (run on the H200).

    PYTHONPATH=src:. python scripts/h200_line_alignment_paths_probe.py [--rounds 8] [--dtype float16]

Call KKK (results/h200-misaligned-paths-probe.log) found the one-tile-per-program descriptor kernel ahead of
the persistent one at 3000^3 (109.9 against 127.6 us, with 4 stages) and 5000^3 (451.8 against 477.6), whose
rows are 6000 and 10000 bytes long. The persistent kernel stays ahead on aligned rows (the sixth and earlier
sessions). Is it the misaligned rows? This times both kernels at sizes whose rows miss the lines by different
amounts, and at 3000^3 and 5000^3 again with rows padded onto lines.
"""

import argparse

import torch
import triton

import tilelab
from scripts.turns import report_in_turns
from tilelab.ops.matmul_hopper import HopperConfig
from tilelab.tuning import Config

MISALIGNED = [2000, 3000, 4000, 5000, 6000]  # row bytes mod 128 (fp16): 32, 112, 64, 16, 96
PADDED = [3000, 5000]


def variants_for(a: torch.Tensor, b: torch.Tensor) -> dict:
    variants = {"torch": lambda: torch.mm(a, b), "library default": lambda: tilelab.matmul(a, b)}
    persistent_s4 = HopperConfig(128, 256, 64, 8, num_warps=8, num_stages=4, flatten=True)
    variants[f"persistent {persistent_s4.label()}"] = (
        lambda: tilelab.matmul(a, b, path="persistent", config=persistent_s4))
    for bm, bn, bk, warps, stages in ((128, 256, 64, 8, 3), (128, 256, 64, 8, 4), (128, 128, 64, 8, 4),
                                      (128, 128, 64, 4, 4), (128, 128, 64, 8, 6)):
        config = Config(bm, bn, bk, 8, num_warps=warps, num_stages=stages)
        variants[f"descriptor {config.label()}"] = (
            lambda c=config: tilelab.matmul(a, b, path="descriptor", config=c))
    return variants


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--dtype", default="float16", choices=["float16", "bfloat16"])
    args = parser.parse_args()
    dtype = getattr(torch, args.dtype)
    for size in MISALIGNED:
        a = torch.randn(size, size, device="cuda").to(dtype)
        b = torch.randn(size, size, device="cuda").to(dtype)
        report_in_turns(f"== {size}^3 {dtype}, rows of {size * dtype.itemsize} bytes", variants_for(a, b),
                        args.rounds, by_time=True)
    for size in PADDED:
        width = triton.cdiv(size, 64) * 64
        a = torch.randn(size, width, device="cuda").to(dtype)[:, :size]
        b = torch.randn(size, width, device="cuda").to(dtype)[:, :size]
        report_in_turns(f"== {size}^3 {dtype}, rows padded to {width * dtype.itemsize} bytes", variants_for(a, b),
                        args.rounds, by_time=True)


if __name__ == "__main__":
    main()
