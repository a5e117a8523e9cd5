"""Long K over a small output with B's rows off sectors: which split-K and one-pass tiles win? (run on the H200)

    PYTHONPATH=src:. python scripts/h200_long_k_off_sector_probe.py [--rounds 6] [--shape M N K ...]
        [--splitk BMxBNxBK:STAGES:WARPS:SLICES ...]

1000x1000x4000 takes split-K, tuned in the 1024x1024x4096 bucket: 64x128x128 in one slice, picked where B's
rows start on 128-byte lines. At 1000 columns every other row of B starts 16 bytes into a sector, and a tile
64 rows tall reads all of B 16 times. Here every candidate below runs at the shape itself, in turns with torch
and the default, each as its recorded launch (no planning in the timing); 1024x1024x4096 is the aligned control.
"""

import argparse
import functools

import torch

from scripts.turns import recorded_launch, report_in_turns
from tilelab.ops.matmul_hopper import HopperConfig
from tilelab.reference import matmul_reference

SHAPES = [(1000, 1000, 4000), (1000, 1000, 8000), (1000, 1000, 16000), (1024, 1024, 4096)]
# (BLOCK_M, BLOCK_N, BLOCK_K, stages, warps, slices)
SPLIT_K = [(64, 128, 128, 4, 4, 1), (128, 64, 128, 4, 4, 1), (128, 64, 128, 4, 4, 2), (128, 128, 64, 4, 4, 2),
           (128, 128, 64, 3, 8, 2), (128, 128, 128, 3, 8, 2), (128, 256, 64, 3, 8, 4), (128, 256, 64, 3, 8, 2),
           (64, 128, 64, 8, 4, 1), (64, 128, 64, 4, 4, 2)]
ONE_PASS = {"descriptor": [(128, 64, 128, 4, 4), (128, 64, 64, 6, 4)], "persistent": [(128, 64, 64, 4, 4)]}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--shape", type=int, nargs=3, action="append", help="M N K, fp16 only (default: SHAPES)")
    parser.add_argument("--splitk", action="append", metavar="BMxBNxBK:STAGES:WARPS:SLICES",
                        help="split-K tiles to time instead of SPLIT_K (no one-pass tiles then)")
    args = parser.parse_args()
    global SPLIT_K, ONE_PASS
    if args.splitk:
        SPLIT_K = [tuple(int(v) for v in spec.replace("x", ":").split(":")) for spec in args.splitk]
        ONE_PASS = {}
    cases = ((torch.float16, args.shape), ) if args.shape else ((torch.float16, SHAPES), (torch.bfloat16, SHAPES[:1]))
    for dtype, shapes in cases:
        for m, n, k in shapes:
            a = torch.randn(m, k, device="cuda", dtype=dtype)
            b = torch.randn(k, n, device="cuda", dtype=dtype)
            variants = {"torch": functools.partial(torch.mm, a, b)}
            variants["default"], plan = recorded_launch(a, b)
            config = plan["config"] or {}
            print(f"  default: {plan['path']} {config.get('block_m')}x{config.get('block_n')}x"
                  f"{config.get('block_k')} s{config.get('num_stages')} w{config.get('num_warps')} "
                  f"sk{config.get('split_k')}", flush=True)
            for bm, bn, bk, stages, warps, slices in SPLIT_K:
                cfg = HopperConfig(bm, bn, bk, 8, num_warps=warps, num_stages=stages, epilogue_subtile=False,
                                   split_k=slices)
                try:
                    name = f"splitk {bm}x{bn}x{bk} s{stages} w{warps} sk{slices}"
                    variants[name], _ = recorded_launch(a, b, path="splitk", config=cfg)
                except Exception as error:  # a tile that does not fit is a result too
                    print(f"  splitk {cfg.label()} failed: {type(error).__name__}: {str(error)[:150]}", flush=True)
            for path, tiles in ONE_PASS.items():
                for bm, bn, bk, stages, warps in tiles:
                    cfg = HopperConfig(bm, bn, bk, 8, num_warps=warps, num_stages=stages,
                                       epilogue_subtile=path == "persistent")
                    try:
                        name = f"{path} {bm}x{bn}x{bk} s{stages} w{warps}"
                        variants[name], _ = recorded_launch(a, b, path=path, config=cfg)
                    except Exception as error:
                        print(f"  {path} {cfg.label()} failed: {type(error).__name__}: {str(error)[:150]}",
                              flush=True)
            report_in_turns(f"{m}x{n}x{k} {dtype}", variants, args.rounds, reference=matmul_reference(a, b),
                            by_time=True)


if __name__ == "__main__":
    main()
