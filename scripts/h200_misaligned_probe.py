"""1000^3: which descriptor tile suits rows that are not 128-byte aligned (run on the H200).

    PYTHONPATH=src:. python scripts/h200_misaligned_probe.py [--rounds 6]

1000^3 takes 1024^3's tuned tile (64x128x128, 4 stages) because both fall in one shape bucket, but the two
differ in more than size: 1000 fp16/bf16 elements make 2000-byte rows, so most of the TMA boxes' rows start
mid-way through a 128-byte line. The default measured 0.80x (fp16) / 0.87x (bf16) torch. This times every
descriptor tile the tuner knows at 1000^3 itself, in turns with torch and the default (cold L2), and, as the
floor, the default on the same values kept in rows padded to 1024 elements.
"""

import argparse

import torch

import tilelab
from scripts.turns import report_in_turns
from tilelab.tuning import Config

TILES = [  # BLOCK_M, BLOCK_N, BLOCK_K, warps, stages
    (64, 128, 128, 4, 4), (64, 128, 128, 4, 3), (128, 64, 128, 4, 4), (64, 128, 64, 4, 4), (128, 64, 64, 4, 4),
    (64, 64, 64, 4, 4), (64, 64, 128, 4, 4), (128, 128, 64, 4, 4), (128, 128, 64, 8, 4), (64, 256, 64, 4, 4),
    (32, 64, 128, 4, 4), (128, 128, 128, 8, 3),
]


def probe(dtype: torch.dtype, rounds: int) -> None:
    a = torch.randn(1000, 1000, device="cuda").to(dtype)
    b = torch.randn(1000, 1000, device="cuda").to(dtype)
    a_padded = torch.empty(1000, 1024, device="cuda", dtype=dtype)[:, :1000]
    b_padded = torch.empty(1000, 1024, device="cuda", dtype=dtype)[:, :1000]
    a_padded.copy_(a)
    b_padded.copy_(b)
    variants = {"torch": lambda: torch.mm(a, b), "library default": lambda: tilelab.matmul(a, b),
                "default, rows padded to 1024": lambda: tilelab.matmul(a_padded, b_padded)}
    for bm, bn, bk, warps, stages in TILES:
        config = Config(bm, bn, bk, 8, num_warps=warps, num_stages=stages)
        variants[f"descriptor {config.label()}"] = (
            lambda c=config: tilelab.matmul(a, b, path="descriptor", config=c))
    report_in_turns(f"== 1000^3 {dtype}", variants, rounds, reference=a.double() @ b.double(), by_time=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=6)
    args = parser.parse_args()
    for dtype in (torch.float16, torch.bfloat16):
        probe(dtype, args.rounds)


if __name__ == "__main__":
    main()
