"""Fewer row classes, taller tiles: does a batch read B fewer times and gain? (run on the H200)

    PYTHONPATH=src:. python scripts/h200_batch_class_count_probe.py [--rounds 10]

16x1000^3 reads A's rows in 8 classes of 125 rows, so its tiles are at most 128 rows tall and B (rows off
sectors, K's, read by every tile row) is read 8 times per matrix. In 4 classes of 250 rows (A's rows start on
64-byte boundaries: on sectors, not lines) a 256-row tile reads B 4 times and A twice as often. Variants, each
its recorded launch, against torch.matmul, in turns: the default (8 classes, shipped tuning); 4 and 2 classes
(`ROW_CLASS_COUNTS` patched), the persistent kernel tuned there; and 256x128x64 forced in 4 classes.
"""

import argparse
import functools

import torch

from scripts.h200_batch_row_class_probe import describe, recorded
from scripts.turns import recorded_launch, report_in_turns
from tilelab.ops.matmul_hopper import HopperConfig
from tilelab.reference import matmul_reference

SHAPES = [(16, 1000, 1000, 1000), (16, 1000, 1000, 3000)]
TALL = HopperConfig(256, 128, 64, 8, num_warps=8, num_stages=3)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    for dtype, shapes in ((torch.float16, SHAPES), (torch.bfloat16, SHAPES[:1])):
        for batch, m, n, k in shapes:
            a = torch.randn(batch, m, k, device="cuda", dtype=dtype)
            b = torch.randn(batch, k, n, device="cuda", dtype=dtype)
            variants = {"torch": functools.partial(torch.matmul, a, b)}
            for name, patch in (("8 classes", {}), ("4 classes", {"ROW_CLASS_COUNTS": (4, 2)}),
                                ("2 classes", {"ROW_CLASS_COUNTS": (2,)})):
                variants[name], plan = recorded(a, b, None, **patch)
                describe(name, plan)
            try:
                variants["4 classes, 256x128x64"], plan = recorded_launch(a, b, path="persistent", config=TALL,
                                                                         ROW_CLASS_COUNTS=(4, 2))
                describe("4 classes, 256x128x64", plan)
            except Exception as error:  # a tile that does not fit is a result too
                print(f"  256x128x64 failed: {type(error).__name__}: {str(error)[:200]}", flush=True)
            report_in_turns(f"{batch}x{m}x{n}x{k} {dtype}", variants, args.rounds, reference=matmul_reference(a, b))


if __name__ == "__main__":
    main()
