"""GROUP_M once each round of programs covers whole groups (run on the H200).

    PYTHONPATH=src:. python scripts/h200_group_probe.py [--rounds 10]

With the even grid, 128 programs at 4096^3 work on 128 consecutive tiles at a time. With GROUP_M = 8 and
16 tiles per row that is one group, 8 tile rows by 16 tile columns: per K step the round reads 8 A blocks
and 16 B blocks (640 KB in fp16). GROUP_M = 16 makes it 16 rows by 8 columns, 16 A and 8 B blocks (512 KB);
GROUP_M = 4, 4 by 32 (1152 KB). This times the tuned tile (128x256x64, 3 stages, fused loops) with each
GROUP_M, on the even grid, in turns with torch and the default, at 4096^3 and 8192^3.
"""

import argparse
import dataclasses

import torch
import triton

import tilelab
from scripts.h200_grid_probe import persistent_variant
from scripts.turns import report_in_turns
from tilelab.ops import matmul_hopper

BASE = matmul_hopper.HopperConfig(128, 256, 64, 8, num_warps=8, num_stages=3, epilogue_subtile=True, flatten=True)


def probe(size: int, dtype: torch.dtype, rounds: int) -> None:
    a = torch.randn(size, size, device="cuda").to(dtype)
    b = torch.randn(size, size, device="cuda").to(dtype)
    tiles = triton.cdiv(size, BASE.block_m) * triton.cdiv(size, BASE.block_n)
    programs = matmul_hopper.balanced_programs(tiles, matmul_hopper.device_sms(a.device))
    variants = {"torch": lambda: torch.mm(a, b), "library default": lambda: tilelab.matmul(a, b)}
    for group_m in (8, 16, 4, 32):
        config = dataclasses.replace(BASE, group_m=group_m)
        variants[f"{config.label()}, {programs} programs"] = persistent_variant(a, b, programs, config)[0]
    config = dataclasses.replace(BASE, group_m=16, num_stages=4)
    variants[f"{config.label()}, {programs} programs"] = persistent_variant(a, b, programs, config)[0]
    report_in_turns(f"== {size}^3 {dtype}", variants, rounds, reference=torch.mm(a.float(), b.float()))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    for dtype in (torch.float16, torch.bfloat16):
        for size in (4096, 8192):
            probe(size, dtype, args.rounds)


if __name__ == "__main__":
    main()
