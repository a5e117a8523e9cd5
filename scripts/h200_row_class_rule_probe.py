"""Does the row-class rule help where it now applies, beyond the shapes it was measured at? (run on the H200)

    PYTHONPATH=src:. python scripts/h200_row_class_rule_probe.py [--rounds 10]

`tilelab.ops.matmul.row_classes` was measured at 1000^3, 3000^3 and 5000^3; it also takes every other fp16/bf16
GEMM on the descriptor path whose A rows start 16 bytes into a sector. Here the default call is timed with and
without it (ROW_CLASS_MIN_M raised out of reach), each tuned as it would be, against torch, in turns. Each
variant is its recorded launch (tilelab.matmul's replay), so neither pays for planning in the timing.
"""

import argparse
import contextlib
import functools
from unittest import mock

import torch

import tilelab
from scripts.turns import report_in_turns
from tilelab.ops import matmul as matmul_op
from tilelab.reference import matmul_reference

SHAPES = [(2600, 2600, 2600), (1000, 2048, 1000), (2000, 2000, 1000), (640, 1000, 1000), (4000, 4000, 1000),
          (1000, 1000, 1000)]


def recorded(a, b, **patch):
    """tilelab.matmul(a, b) planned (and tuned) under `patch`, then its recorded launch; and the plan."""
    matmul_op._REPLAYS.clear()
    with mock.patch.multiple(matmul_op, **patch) if patch else contextlib.nullcontext():
        tilelab.matmul(a, b)
        plan = matmul_op.describe_plan(a, b)
    (replay,) = matmul_op._REPLAYS.values()
    return (lambda: replay(a, b)), plan


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    for dtype in (torch.float16, torch.bfloat16):
        for m, n, k in SHAPES:
            a = torch.randn(m, k, device="cuda", dtype=dtype)
            b = torch.randn(k, n, device="cuda", dtype=dtype)
            with_classes, plan = recorded(a, b)
            without, plain = recorded(a, b, ROW_CLASS_MIN_M=1 << 40)
            for name, p in (("classes", plan), ("no classes", plain)):
                config = p["config"] or {}
                print(f"  {name}: {p['path']}, {p['row_classes']} classes, "
                      f"{config.get('block_m')}x{config.get('block_n')}x{config.get('block_k')} "
                      f"s{config.get('num_stages')} w{config.get('num_warps')}", flush=True)
            variants = {"torch": functools.partial(torch.mm, a, b), "classes": with_classes, "no classes": without}
            report_in_turns(f"{m}x{n}x{k} {dtype}", variants, args.rounds, reference=matmul_reference(a, b))


if __name__ == "__main__":
    main()
