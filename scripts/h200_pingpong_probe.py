"""fp16/bf16: warp groups taking turns on whole tiles (a Gluon probe kernel) against torch and tilelab (H200).

    PYTHONPATH=src:. python scripts/h200_pingpong_probe.py [--rounds 10] [--dtype float16] [--shape M,N,K ...]
        [--config BMxBNxBK-sSTAGES[-half] ...]

The persistent kernel's two warp groups share each 128x256 tile and both stop for its epilogue; in
`scripts/gluon_pingpong_kernel.py` each group owns alternate tiles of 128x128 or 64x256, so one group's MMAs
can run while the other stores. This probe times it in turns with torch.mm and the default `tilelab.matmul`,
cold L2, each with its relative error against float64, on two grids: one program per SM, and the even grid
the library's persistent kernel uses (`balanced_programs`).
"""

import argparse

import torch

import tilelab
from scripts.turns import report_in_turns
from tilelab.ops.matmul import describe_plan
from tilelab.ops.matmul_hopper import balanced_programs, device_sms
from tilelab.reference import relative_error
from tilelab.tuning import ceil_div

SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192), (8192, 8192, 1024), (4096, 4096, 11008), (4096, 11008, 4096),
          (2048, 2048, 2048)]
CONFIGS = ["128x128x64-s4", "128x128x64-s5", "64x256x64-s4"]
MMA_REGS = 232
GROUP_M = 8


def parse_tag(tag: str) -> tuple[int, int, int, int, bool]:
    """BMxBNxBK-sSTAGES, with "-half" for an epilogue that stores half a tile at a time."""
    tiles, stages, *half = tag.split("-")
    block_m, block_n, block_k = (int(x) for x in tiles.split("x"))
    return block_m, block_n, block_k, int(stages.removeprefix("s")), half == ["half"]


def pingpong(a, b, tag: str, grid_rule: str):
    """A launcher of the probe kernel on A and B with the tile `tag`; returns C."""
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon.nvidia.hopper import TensorDescriptor

    from scripts.gluon_pingpong_kernel import matmul_pingpong_kernel

    block_m, block_n, block_k, stages, half = parse_tag(tag)
    (m, k), n = a.shape, b.shape[1]
    c = torch.empty(m, n, device=a.device, dtype=a.dtype)
    element = {torch.float16: gl.float16, torch.bfloat16: gl.bfloat16}[a.dtype]

    def describe(x, block):
        return TensorDescriptor(x, list(x.shape), [x.stride(0), 1], block,
                                gl.NVMMASharedLayout.get_default_for(block, element))

    c_block = [block_m, block_n // 2 if half else block_n]
    descriptors = (describe(a, [block_m, block_k]), describe(b, [block_k, block_n]), describe(c, c_block))
    tiles = ceil_div(m, block_m) * ceil_div(n, block_n)
    sms = device_sms(a.device)
    programs = min(tiles, sms) if grid_rule == "sms" else balanced_programs(tiles, sms)

    def run():
        matmul_pingpong_kernel[(programs, )](*descriptors, m, n, k, GROUP_M, stages, MMA_REGS, num_warps=4)
        return c
    return run, programs


CHECK_SHAPES = [(1000, 1000, 1000), (256, 384, 64), (777, 1032, 520), (4096, 4096, 4096)]


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
    parser.add_argument("--config", action="append", help="BMxBNxBK-sSTAGES[-half] (repeatable; default: CONFIGS)")
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
