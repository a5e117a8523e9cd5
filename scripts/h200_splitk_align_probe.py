"""Split-K through pointers on rows that are 16-byte aligned but not multiples of 16 elements (run on the H200).

    PYTHONPATH=src:. python scripts/h200_splitk_align_probe.py [--rounds 10]

Triton proves vector alignment only for sizes and strides that are multiples of 16. The pointer path's kernel
gets ALIGN from `pointer_align`; the split-K kernel had no such hint, and at 1000^3 it took about 250 us
against 13 for the descriptor path (results/h200-1000-splitk-probe.log). This times the shapes whose default
is split-K with such rows, with the hint (`split_k_align`) and without it (ALIGN=1, the code before), in
turns with torch. Both use the configuration the first call tunes (with the hint).
"""

import argparse
from unittest import mock

import torch

import tilelab
from scripts.turns import report_in_turns
from tilelab.ops import matmul as matmul_op
from tilelab.ops import matmul_hopper
from tilelab.ops.matmul import describe_plan

SHAPES = [(128, 1000, 8192), (16, 3000, 4000), (64, 4104, 4104), (1000, 1000, 1000)]


def without_hint(a: torch.Tensor, b: torch.Tensor, **kwargs):
    def run():
        matmul_op._REPLAYS.clear()
        with mock.patch.object(matmul_hopper, "split_k_align", lambda *args: 1):
            return tilelab.matmul(a, b, **kwargs)
    return run


def with_hint(a: torch.Tensor, b: torch.Tensor, **kwargs):
    def run():
        matmul_op._REPLAYS.clear()
        return tilelab.matmul(a, b, **kwargs)
    return run


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    for m, n, k in SHAPES:
        for dtype in (torch.float16, torch.bfloat16):
            a = torch.randn(m, k, device="cuda").to(dtype)
            b = torch.randn(k, n, device="cuda").to(dtype)
            forced = {"path": "splitk"} if (m, n, k) == (1000, 1000, 1000) else {}
            variants = {"torch": lambda a=a, b=b: torch.mm(a, b), "split-K, ALIGN hint": with_hint(a, b, **forced),
                        "split-K, no hint (before)": without_hint(a, b, **forced)}
            report_in_turns(f"== {m}x{n}x{k} {dtype}", variants, args.rounds, reference=a.double() @ b.double())
            plan = describe_plan(a, b, **forced)
            print(f"  plan: {plan['path']} {plan['config']}", flush=True)


if __name__ == "__main__":
    main()
