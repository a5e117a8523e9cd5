"""Second look at split-K for M = 128 and 16 (N = K = 4096), after the re-tune chose 64x128x128, 4 stages, 2 slices.

    PYTHONPATH=src:. python scripts/h200_skinny_evict_probe.py [--rounds 5]

The probe kernel of scripts/h200_skinny_probe.py (its last slice keeps its own partial): L2 eviction hints
(A kept, B dropped first), 8 warps, shorter K steps with deeper pipelines, wider tiles; cold and warm L2.
"""

import argparse

import torch

from scripts.h200_skinny_probe import OWN, run, skinny_problem, splitk_variant

TILES = {  # M: (BLOCK_M, BLOCK_N, BLOCK_K, slices, warps, stages, evict)
    128: [(64, 128, 128, 2, 4, 4, False), (64, 128, 128, 2, 4, 4, True), (64, 128, 128, 2, 8, 4, False),
          (64, 128, 64, 2, 4, 8, False), (64, 128, 64, 2, 4, 8, True), (64, 128, 64, 2, 4, 6, False),
          (64, 256, 64, 4, 4, 4, False), (64, 256, 64, 4, 8, 4, False), (64, 128, 128, 4, 4, 4, False)],
    16: [(16, 64, 128, 2, 4, 4, False), (16, 64, 128, 2, 4, 4, True), (16, 64, 64, 2, 4, 8, False),
         (16, 128, 128, 2, 4, 4, True)],
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    for dtype in (torch.float16, torch.bfloat16):
        for m, tiles in TILES.items():
            a, b, variants = skinny_problem(m, dtype)
            for bm, bn, bk, s, warps, stages, evict in tiles:
                name = f"{bm}x{bn}x{bk}-sk{s}-w{warps}-s{stages}{' evict' if evict else ''}"
                variants[name] = splitk_variant(a, b, bm, bn, bk, s, warps, stages, OWN, evict)
            run(f"{m}x4096x4096 {dtype}", a, b, variants, args.rounds)


if __name__ == "__main__":
    main()
