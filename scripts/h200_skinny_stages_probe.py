"""Deep pipelines for 128x4096x4096, where cuBLAS runs 64x64 tiles in 13 stages without a split (run on the H200).

    PYTHONPATH=src:. python scripts/h200_skinny_stages_probe.py [--rounds 10] [--shape M,N,K ...] [--configs ...]

The default takes split-K, 64x128x64 tiles, 8 stages, 2 slices: 0.90-0.92x torch in the sweeps. The problem
reads 32 MB of B and little else, so what each SM keeps in flight may decide it. Split-K configurations with
more stages (`launch_split_k`, pointer loads; split 1 stores C directly), in turns with torch and the default,
cold L2.
"""

import argparse
import dataclasses

import torch

import tilelab
from scripts.turns import report_in_turns
from tilelab.ops.matmul_hopper import SPLIT_K_CANDIDATES, launch_split_k

SHAPES = ["128,4096,4096", "256,4096,4096"]
# block_m, block_n, block_k, stages, warps, split
CONFIGS = [(64, 128, 64, 8, 4, 2), (64, 64, 64, 8, 4, 1), (64, 64, 64, 12, 4, 1), (64, 64, 64, 12, 4, 2),
           (128, 64, 64, 8, 4, 1), (128, 64, 64, 8, 4, 2), (64, 64, 128, 6, 4, 1), (64, 128, 64, 10, 4, 2),
           (64, 64, 64, 13, 4, 1)]


def variant(a, b, bm, bn, bk, stages, warps, split):
    config = dataclasses.replace(SPLIT_K_CANDIDATES[0], block_m=bm, block_n=bn, block_k=bk, num_stages=stages,
                                 num_warps=warps, split_k=split)
    m, k = a.shape
    n = b.shape[1]
    c = torch.empty(1, m, n, device=a.device, dtype=a.dtype)

    def run():
        launch_split_k(a[None], b[None], c, m, n, k, "tf32", config)
        return c[0]
    return run


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--shape", action="append", help="M,N,K (repeatable); default: " + " ".join(SHAPES))
    parser.add_argument("--configs", nargs="+", default=None,
                        help="BMxBNxBK-STAGES-WARPS-SPLIT labels, e.g. 64x64x128-7-4-1; default: CONFIGS")
    args = parser.parse_args()
    shapes = [tuple(int(d) for d in shape.split(",")) for shape in (args.shape or SHAPES)]
    configs = CONFIGS if args.configs is None else [
        tuple(int(v) for v in label.replace("x", "-").split("-")) for label in args.configs]
    for dtype in (torch.float16, torch.bfloat16):
        for m, n, k in shapes:
            a = torch.randn(m, k, device="cuda", dtype=dtype)
            b = torch.randn(k, n, device="cuda", dtype=dtype)
            variants = {"torch": lambda a=a, b=b: torch.mm(a, b),
                        "library default": lambda a=a, b=b: tilelab.matmul(a, b)}
            for config in configs:
                bm, bn, bk, stages, warps, split = config
                variants[f"{bm}x{bn}x{bk}-s{stages}-w{warps}-sk{split}"] = variant(a, b, *config)
            report_in_turns(f"== {m}x{n}x{k} {dtype}", variants, args.rounds, reference=a.double() @ b.double(),
                            by_time=True)


if __name__ == "__main__":
    main()
