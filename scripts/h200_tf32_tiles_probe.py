"""tf32 on the registers path with smaller tiles, for problems whose default tiles leave SMs idle (H200).

    PYTHONPATH=src:. python scripts/h200_tf32_tiles_probe.py [--rounds 10] [--shape M,N,K ...] [--config TAG ...]

TAG is `RegistersConfig.tag()`'s form, BMxBNxBK-wWARPS-sSTAGES (e.g. 256x64x32-w4-s5); without --config the
probe times the configurations below.

The registers kernel's default 256x128 tile makes 64 tiles at 512x4096x4096 and 32 at 1024^3: a half and a
quarter of the H200's 132 SMs. Before this probe (the tenth session's code) `tilelab.matmul` ran those 64 tiles
at 0.67-0.69x torch, and at 1000^3 and 1024^3 copied B K-major for the descriptor kernel, 0.80-0.91x
(results/h200-matmul-float32-tf32-sizes-final.json). The kernel takes any
block_m (C^T's wgmma N), block_n (64 rows of C^T per warp group) and stage count; this probe times tiles that
fill the SMs against torch.mm with TF32 allowed and against what `tilelab.matmul` does by default, in turns,
cold L2, with each one's relative error against float64.
"""

import argparse

import torch

import tilelab
from scripts.h200_tf32_rounding_probe import variant
from scripts.turns import planned, report_in_turns
from tilelab.ops import matmul_registers as registers
from tilelab.ops.matmul import describe_plan
from tilelab.ops.matmul_hopper import device_sms

SHAPES = [(512, 4096, 4096), (1000, 1000, 1000), (1024, 1024, 1024), (512, 512, 512), (2048, 2048, 2048),
          (1024, 4096, 4096), (4096, 4096, 4096)]
CONFIGS = {
    "256x128x32 s4 (default)": registers.RegistersConfig(),
    "128x128x32 s5": registers.RegistersConfig(128, 128, 32, 5),
    "128x128x32 s6": registers.RegistersConfig(128, 128, 32, 6),
    "128x128x64 s3": registers.RegistersConfig(128, 128, 64, 3),
    "128x64x32 w4 s6": registers.RegistersConfig(128, 64, 32, 6, num_warps=4),
    "128x64x32 w4 s8": registers.RegistersConfig(128, 64, 32, 8, num_warps=4),
    "64x128x32 s8": registers.RegistersConfig(64, 128, 32, 8),
    "64x64x32 w4 s8": registers.RegistersConfig(64, 64, 32, 8, num_warps=4),
}


def parse_tag(tag: str) -> registers.RegistersConfig:
    tiles, warps, stages = tag.split("-")
    block_m, block_n, block_k = (int(x) for x in tiles.split("x"))
    return registers.RegistersConfig(block_m, block_n, block_k, int(stages.removeprefix("s")),
                                     num_warps=int(warps.removeprefix("w")))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--shape", action="append", help="M,N,K (repeatable; default: SHAPES)")
    parser.add_argument("--config", action="append", help="a tag (repeatable; default: CONFIGS)")
    parser.add_argument("--splitk", action="store_true", help="also time tilelab.matmul(path='splitk')")
    args = parser.parse_args()
    shapes = [tuple(int(x) for x in s.split(",")) for s in args.shape] if args.shape else SHAPES
    configs = {tag: parse_tag(tag) for tag in args.config} if args.config else CONFIGS
    torch.backends.cuda.matmul.allow_tf32 = True
    sms = device_sms(torch.device("cuda"))
    for m, n, k in shapes:
        a = torch.randn(m, k, device="cuda")
        b = torch.randn(k, n, device="cuda")
        reference = a.double() @ b.double()
        plan = describe_plan(a, b)
        variants = {"torch": lambda a=a, b=b: torch.mm(a, b),
                    "tilelab.matmul": planned(lambda a=a, b=b: tilelab.matmul(a, b))}
        if args.splitk:
            variants["split-K"] = planned(lambda a=a, b=b: tilelab.matmul(a, b, path="splitk"))
        for name, config in configs.items():
            tiles = -(-m // config.block_m) * -(-n // config.block_n)
            variants[f"{name} ({tiles} tiles)"] = variant(a, b, config)
        title = f"== {m}x{n}x{k} tf32 ({sms} SMs; default plan: {plan['path']})"
        report_in_turns(title, variants, args.rounds, reference=reference, by_time=True)


if __name__ == "__main__":
    main()
