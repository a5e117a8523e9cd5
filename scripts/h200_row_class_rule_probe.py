"""Does the row-class rule help where it now applies, beyond the shapes it was measured at? (run on the H200)

    PYTHONPATH=src:. python scripts/h200_row_class_rule_probe.py [--rounds 10] [--b-nk] [--shape M N K ...]

--b-nk: B stored [N, K] (nn.Linear's weight), which the rule leaves alone since call XXXXX (batches lost there);
"classes" then reads A by class anyway (the rule asked as if B were stored [K, N]).

`tilelab.ops.matmul_plan.row_classes` was measured at 1000^3, 3000^3 and 5000^3; it also takes every other fp16/bf16
GEMM on the descriptor path whose A rows start 16 bytes into a sector. Here the default call is timed with and
without it (ROW_CLASS_MIN_M raised out of reach), each tuned as it would be, against torch, in turns. Each
variant is its recorded launch (tilelab.matmul's replay), so neither pays for planning in the timing.
"""

import argparse
import contextlib
import dataclasses
import functools
from unittest import mock

import torch

import tilelab
from scripts.turns import report_in_turns
from tilelab.ops import matmul as matmul_op
from tilelab.ops import matmul_plan
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


def classes_whatever_b(a3, a_layout, b3, b_layout):
    """`row_classes` as if B were stored [K, N]."""
    return _ROW_CLASSES(a3, a_layout, b3, dataclasses.replace(b_layout, row_major=True))


_ROW_CLASSES = matmul_plan.row_classes


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--b-nk", action="store_true", help="B stored [N, K]")
    parser.add_argument("--shape", type=int, nargs=3, action="append", help="M N K (default: SHAPES)")
    parser.add_argument("--dtype", choices=("float16", "bfloat16"), action="append")
    args = parser.parse_args()
    for dtype in [getattr(torch, d) for d in args.dtype or ("float16", "bfloat16")]:
        for m, n, k in args.shape or SHAPES:
            a = torch.randn(m, k, device="cuda", dtype=dtype)
            b = torch.randn(n, k, device="cuda", dtype=dtype).t() if args.b_nk else torch.randn(k, n, device="cuda",
                                                                                                   dtype=dtype)
            if args.b_nk:
                with_classes, plan = recorded(a, b, row_classes=classes_whatever_b)
            else:
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
