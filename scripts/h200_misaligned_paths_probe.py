"""Rows that are not 128-byte aligned: TMA (persistent, descriptor) against pointer loads (run on the H200).

    PYTHONPATH=src:. python scripts/h200_misaligned_paths_probe.py [--rounds 6] [SIZE ...]

At 3000^3 and 5000^3 the persistent kernel took 126.6 and 480.8 us on the caller's rows (6000 and 10000
bytes long) and 103.1 and 385.2 us on the same values in rows padded to 128-byte lines (call JJJ,
results/h200-wave-padded-probe.log): misaligned TMA boxes cost about a fifth. The pointer path reads with
16-byte `cp.async` copies (its ALIGN hint proves them) instead of TMA boxes. This times, at each size, the
default, the pointer and descriptor paths with the large tiles, and the default on padded rows.
"""

import argparse

import torch

import tilelab
from scripts.turns import report_in_turns
from tilelab.tuning import Config

TILES = [  # BLOCK_M, BLOCK_N, BLOCK_K, warps, stages
    (128, 256, 64, 8, 3), (128, 256, 64, 8, 4), (256, 128, 64, 8, 3), (128, 128, 64, 8, 4), (128, 128, 64, 4, 4),
    (64, 128, 128, 4, 4), (128, 64, 128, 4, 4),
]


def probe(size: int, dtype: torch.dtype, rounds: int) -> None:
    a = torch.randn(size, size, device="cuda").to(dtype)
    b = torch.randn(size, size, device="cuda").to(dtype)
    a_lines, b_lines = tilelab.to_aligned(a), tilelab.to_aligned(b)  # fp16/bf16 rows padded to 64 elements
    width = a_lines.stride(0)
    variants = {"torch": lambda: torch.mm(a, b), "library default": lambda: tilelab.matmul(a, b),
                f"default, rows padded to {width}": lambda: tilelab.matmul(a_lines, b_lines)}
    for bm, bn, bk, warps, stages in TILES:
        config = Config(bm, bn, bk, 8, num_warps=warps, num_stages=stages)
        for path in ("pointer", "descriptor"):
            variants[f"{path} {config.label()}"] = lambda c=config, p=path: tilelab.matmul(a, b, path=p, config=c)
    report_in_turns(f"== {size}^3 {dtype}", variants, rounds, reference=a.double() @ b.double(), by_time=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("sizes", nargs="*", type=int, default=[1000, 3000, 5000])
    parser.add_argument("--rounds", type=int, default=6)
    args = parser.parse_args()
    for size in args.sizes:
        for dtype in (torch.float16, torch.bfloat16):
            probe(size, dtype, args.rounds)


if __name__ == "__main__":
    main()
