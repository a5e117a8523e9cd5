"""Deep pipelines on the pointer and descriptor paths for problems of 512^3 to 2048^3 (run on the H200).

    PYTHONPATH=src:. python scripts/h200_deep_pipeline_probe.py [--rounds 10]

cuBLAS runs these sizes with 8 stages (1000^3, 1024^3) to 15 (512^3), where the tuner's candidates stopped at
5; split-K's 64x64x128 tiles in 7 stages took 128x4096x4096 from 0.90x to 1.01x torch. Each shape's default
and the deep candidates (`tuning.GPU_CANDIDATES`, session 10) through `tilelab.matmul(path=..., config=...)`, in
turns with torch, cold L2.
"""

import argparse

import torch

import tilelab
from scripts.turns import report_in_turns
from tilelab.tuning import Config

DEEP = [Config(64, 128, 64, 8, num_warps=4, num_stages=8), Config(128, 64, 64, 8, num_warps=4, num_stages=8),
        Config(64, 64, 128, 8, num_warps=4, num_stages=6), Config(64, 32, 64, 8, num_warps=4, num_stages=12),
        Config(128, 128, 64, 8, num_warps=8, num_stages=6), Config(64, 128, 128, 8, num_warps=4, num_stages=4),
        Config(128, 256, 64, 8, num_warps=8, num_stages=4)]
CASES = [((512, 512, 512), "pointer"), ((512, 512, 512), "descriptor"), ((1000, 1000, 1000), "descriptor"),
         ((1024, 1024, 1024), "descriptor"), ((2048, 2048, 2048), "descriptor")]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    for dtype in (torch.float16, torch.bfloat16):
        for (m, n, k), path in CASES:
            a = torch.randn(m, k, device="cuda", dtype=dtype)
            b = torch.randn(k, n, device="cuda", dtype=dtype)
            variants = {"torch": lambda a=a, b=b: torch.mm(a, b),
                        "library default": lambda a=a, b=b: tilelab.matmul(a, b)}
            for config in DEEP:
                variants[f"{path} {config.label()}"] = lambda a=a, b=b, c=config, p=path: tilelab.matmul(
                    a, b, path=p, config=c)
            report_in_turns(f"== {m}x{n}x{k} {dtype} {path}", variants, args.rounds,
                            reference=a.double() @ b.double(), by_time=True)


if __name__ == "__main__":
    main()
