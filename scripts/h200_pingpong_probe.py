"""fp16/bf16: the pingpong kernel in any tile and ring depth, against torch and the default `tilelab.matmul` (H200).

    PYTHONPATH=src:. python scripts/h200_pingpong_probe.py [--rounds 10] [--dtype float16] [--shape M,N,K ...]
        [--config BMxBNxBK-sSTAGES ...] [--grid sms|even] [--check]

The library's kernel (`tilelab.kernels.matmul_pingpong`) launched directly with each configuration, in turns
with torch.mm and the default call, cold L2, each with its relative error against float64, on two grids: one
program per SM, and the even grid the persistent kernels use (`balanced_programs`). `--check` only compares
each configuration with float64 at CHECK_SHAPES. Calls IIII and JJJJ (results/h200-pingpong-probe.log, -2.log)
ran this probe at commits 558d6d2 and 2bab0a1 on an earlier copy of the kernel in `scripts/`, which could also
stage a whole tile ("-half" in their tags meant today's half-width staging).
"""

import argparse
import dataclasses

import torch

import tilelab
from scripts.turns import report_in_turns
from tilelab.ops import matmul_pingpong
from tilelab.ops.matmul import describe_plan
from tilelab.ops.matmul_hopper import balanced_programs, device_sms
from tilelab.reference import relative_error
from tilelab.tuning import tile_count

SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192), (8192, 8192, 1024), (4096, 4096, 11008), (4096, 11008, 4096),
          (2048, 2048, 2048)]
CONFIGS = ["128x128x64-s6", "128x128x32-s12"]
CHECK_SHAPES = [(1000, 1000, 1000), (256, 384, 64), (777, 1032, 520), (4096, 4096, 4096)]


def parse_tag(tag: str) -> matmul_pingpong.PingPongConfig:
    """BMxBNxBK-sSTAGES (a trailing "-half", as in the older logs, is accepted: staging is always half-width)."""
    tiles, stages, *_ = tag.split("-")
    block_m, block_n, block_k = (int(x) for x in tiles.split("x"))
    return dataclasses.replace(matmul_pingpong.DEFAULT_CONFIG, block_m=block_m, block_n=block_n, block_k=block_k,
                               num_stages=int(stages.removeprefix("s")))


def pingpong(a, b, tag: str, grid_rule: str):
    """A launcher of the library's kernel on A and B with the configuration `tag`; returns (run, programs)."""
    from tilelab.kernels.matmul_pingpong import matmul_pingpong_kernel

    config = parse_tag(tag)
    (m, k), n = a.shape, b.shape[1]
    c = torch.empty(m, n, device=a.device, dtype=a.dtype)
    tiles = tile_count(m, n, config)
    sms = device_sms(a.device)
    programs = min(tiles, sms) if grid_rule == "sms" else balanced_programs(tiles, sms)
    args = (*matmul_pingpong.descriptors(a, b, c, config), m, n, k, 1, config.group_m, config.num_stages, False,
            False, config.mma_regs)  # one matrix, B stored [K, N], not a batch

    def run():
        matmul_pingpong_kernel[(programs, )](*args, num_warps=config.num_warps)
        return c
    return run, programs


def check(tags: list[str], dtype: torch.dtype) -> None:
    """Each configuration's relative error against float64, on both grids (C poisoned with NaN first)."""
    for m, n, k in CHECK_SHAPES:
        a = torch.randn(m, k, device="cuda", dtype=dtype)
        b = torch.randn(k, n, device="cuda", dtype=dtype)
        reference = a.double() @ b.double()
        for tag in tags:
            for grid_rule in ("sms", "even"):
                run, programs = pingpong(a, b, tag, grid_rule)
                run().fill_(float("nan"))
                error = relative_error(run(), reference)
                torch.cuda.synchronize()
                print(f"check {m}x{n}x{k} {tag} ({programs} programs): relative error {error:.1e}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--dtype", default="float16", choices=["float16", "bfloat16"])
    parser.add_argument("--shape", action="append", help="M,N,K (repeatable; default: SHAPES)")
    parser.add_argument("--config", action="append", help="BMxBNxBK-sSTAGES (repeatable; default: CONFIGS)")
    parser.add_argument("--grid", action="append", choices=["sms", "even"], help="default: both")
    parser.add_argument("--check", action="store_true",
                        help="only compare each configuration with float64 at CHECK_SHAPES (no timing)")
    args = parser.parse_args()
    dtype = getattr(torch, args.dtype)
    if args.check:
        check(args.config or CONFIGS, dtype)
        return
    shapes = [tuple(int(x) for x in s.split(",")) for s in args.shape] if args.shape else SHAPES
    for m, n, k in shapes:
        a = torch.randn(m, k, device="cuda", dtype=dtype)
        b = torch.randn(k, n, device="cuda", dtype=dtype)
        reference = a.double() @ b.double()
        plan = describe_plan(a, b)
        variants = {"torch": lambda a=a, b=b: torch.mm(a, b), "tilelab.matmul": lambda a=a, b=b: tilelab.matmul(a, b)}
        for tag in args.config or CONFIGS:
            for grid_rule in args.grid or ["sms", "even"]:
                run, programs = pingpong(a, b, tag, grid_rule)
                variants[f"ping-pong {tag} ({programs} programs)"] = run
        title = f"== {m}x{n}x{k} {args.dtype} (default plan: {plan['path']} {plan.get('config', {})})"
        report_in_turns(title, variants, args.rounds, reference=reference)


if __name__ == "__main__":
    main()
