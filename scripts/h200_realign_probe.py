"""Copy rows off sectors onto lines inside the matmul's own launch: does it pay? (run on the H200)

    PYTHONPATH=src:. python scripts/h200_realign_probe.py [--rounds 8] [--dtype fp16] [--shapes 1000]

`scripts/realign_kernel.py` copies A and B into line-aligned scratch, meets at a grid barrier and multiplies
from the scratch through descriptors, in one cooperative launch. Timed in turns (cold L2) against torch, the
default, the default on inputs already aligned (`tilelab.to_aligned`, made before timing: the ceiling), and
the same kernel as two launches (copy, then multiply). First: 200 fused calls in a row, each checked, and the
barrier's counter back at 0.
"""

import argparse

import torch

import tilelab
from scripts.realign_kernel import realigned_matmul
from scripts.turns import report_in_turns
from tilelab.reference import relative_error

SHAPES = {
    "1000": [(1, 1000, 1000, 1000)],
    "batch": [(16, 1000, 1000, 1000)],
    "large": [(1, 3000, 3000, 3000), (1, 5000, 5000, 5000), (1, 1000, 1000, 4000)],
}
TILES = {  # name: (block, stages, warps)
    "64x128x128 s4 w4": ((64, 128, 128), 4, 4),
    "128x128x64 s4 w4": ((128, 128, 64), 4, 4),
    "128x128x64 s4 w8": ((128, 128, 64), 4, 8),
    "64x128x64 s6 w4": ((64, 128, 64), 6, 4),
    "128x256x64 s3 w8": ((128, 256, 64), 3, 8),
}


def check_repeats(dtype) -> None:
    a = torch.randn(1000, 1000, device="cuda").to(dtype)
    b = torch.randn(1000, 1000, device="cuda").to(dtype)
    reference = a.double() @ b.double()
    sync = torch.zeros(2, dtype=torch.int32, device="cuda")
    worst = 0.0
    for _ in range(200):
        worst = max(worst, relative_error(realigned_matmul(a, b, sync=sync), reference))
    torch.cuda.synchronize()
    print(f"200 fused calls: worst relative error {worst:.1e}; barrier words {sync.tolist()} (expect [0, 200])",
          flush=True)


def variants_for(a, b, tiles: dict) -> dict:
    a_lines, b_lines = tilelab.to_aligned(a), tilelab.to_aligned(b)
    sync = torch.zeros(2, dtype=torch.int32, device="cuda")
    variants = {
        "torch": lambda: torch.matmul(a, b),
        "tilelab": lambda: tilelab.matmul(a, b),
        "tilelab, aligned inputs": lambda: tilelab.matmul(a_lines, b_lines),
    }
    for name, (block, stages, warps) in tiles.items():
        variants[f"fused {name}"] = lambda block=block, stages=stages, warps=warps: (
            realigned_matmul(a, b, block, stages=stages, warps=warps, sync=sync))
    variants["two launches 64x128x128 s4 w4"] = lambda: realigned_matmul(a, b, phases="two")
    return variants


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--dtype", default="fp16", choices=["fp16", "bf16"])
    parser.add_argument("--shapes", default="1000", help=f"comma list of {sorted(SHAPES)}")
    parser.add_argument("--tiles", default="all", help="'all' or comma list of TILES names")
    args = parser.parse_args()
    dtype = torch.float16 if args.dtype == "fp16" else torch.bfloat16
    torch.manual_seed(0)
    check_repeats(dtype)
    tiles = TILES if args.tiles == "all" else {name: TILES[name] for name in args.tiles.split(",")}
    for group in args.shapes.split(","):
        for batch, m, n, k in SHAPES[group]:
            lead = (batch,) if batch > 1 else ()
            a = torch.randn(*lead, m, k, device="cuda").to(dtype)
            b = torch.randn(*lead, k, n, device="cuda").to(dtype)
            variants = variants_for(a, b, tiles)
            shape = "x".join(map(str, (batch, m, n, k) if batch > 1 else (m, n, k)))
            report_in_turns(f"{args.dtype} {shape}", variants, args.rounds, reference=a.double() @ b.double(),
                            by_time=True)


if __name__ == "__main__":
    main()
