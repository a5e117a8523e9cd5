"""Tiles the tuner has never tried, on the shapes furthest behind torch (run on the H200).

    PYTHONPATH=src:. python scripts/h200_small_shapes_probe.py [--rounds 5]

Longer K steps (BLOCK_K=128) for 128x128 and 128x64 tiles, on the descriptor path and on split-K reading
through pointers or through host-built descriptors (TMA), next to what the library picks by default.
Variants take turns with torch.mm; each is timed with tuning.measure_ms (events, cold L2); fp16 and bf16.
"""

import argparse

import torch

import tilelab
from scripts.turns import report_in_turns
from tilelab.ops import matmul_hopper, matmul_plan
from tilelab.ops.matmul_hopper import HopperConfig
from tilelab.tuning import Config


def split(bm, bn, bk, stages, warps, s):
    return HopperConfig(bm, bn, bk, 8, num_warps=warps, num_stages=stages, epilogue_subtile=False, split_k=s)


# (path, config, through TMA): descriptor configs, then split-K ones.
PROBES = {
    (1000, 1000, 1000): [("descriptor", Config(128, 64, 128, 8, num_warps=4, num_stages=4), True),
                         ("descriptor", Config(64, 128, 128, 8, num_warps=4, num_stages=4), True),
                         ("splitk", split(128, 64, 128, 4, 4, 1), True),
                         ("splitk", split(64, 128, 128, 3, 4, 1), True),
                         ("splitk", split(128, 128, 128, 3, 8, 2), True)],
    (1024, 1024, 1024): [("descriptor", Config(128, 64, 128, 8, num_warps=4, num_stages=4), True),
                         ("splitk", split(128, 64, 128, 4, 4, 1), True),
                         ("splitk", split(128, 128, 128, 3, 8, 2), True),
                         ("splitk", split(128, 128, 128, 3, 8, 2), False)],
    (128, 4096, 4096): [("splitk", split(128, 128, 128, 3, 8, s), tma) for s in (2, 4) for tma in (False, True)]
                       + [("splitk", split(128, 128, 128, 3, 8, 8), True),
                          ("splitk", split(128, 256, 64, 3, 8, 4), True)],
}


def variant(a, b, path, config, tma):
    m, k = a.shape
    n = b.shape[1]
    if path == "splitk" and tma:  # the library's split-K reads through pointers; ask for descriptors here
        c = torch.empty(m, n, device=a.device, dtype=a.dtype)
        layouts = {"a_layout": matmul_plan.operand_layout(a[None]), "b_layout": matmul_plan.operand_layout(b[None])}

        def launch():
            matmul_hopper.launch_split_k(a[None], b[None], c[None], m, n, k, "tf32", config, **layouts)
            return c
        return launch
    return lambda: tilelab.matmul(a, b, path=path, config=config)


def probe(shape, dtype, rounds: int) -> None:
    m, n, k = shape
    a = torch.randn(m, k, device="cuda").to(dtype)
    b = torch.randn(k, n, device="cuda").to(dtype)
    variants = {"torch": lambda: torch.mm(a, b), "library default": lambda: tilelab.matmul(a, b)}
    for path, config, tma in PROBES[shape]:
        variants[f"{path:10s} {config.label():32s} {'tma' if tma else 'ptr'}"] = variant(a, b, path, config, tma)
    report_in_turns(f"{m}x{n}x{k} {dtype}", variants, rounds, reference=a.double() @ b.double())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    for dtype in (torch.float16, torch.bfloat16):
        for shape in PROBES:
            probe(shape, dtype, args.rounds)


if __name__ == "__main__":
    main()
