"""When does copying misaligned operands onto 128-byte lines pay? (run on the H200)

    PYTHONPATH=src:. python scripts/h200_row_copy_probe.py [--rounds 10]

`tilelab.ops.matmul._with_line_aligned_rows` copies a large fp16/bf16 operand whose rows do not start on
128-byte lines into rows that do, from ALIGN_COPY_MIN_WORK multiply-adds. This times the default with the
copies forced on (threshold 0) and off (threshold infinite) at square sizes whose rows are off the lines,
in turns with torch (cold L2). Both plan every call (no replays), so they pay the same host work.

It ran at commit c404a8a (call FFF). The copies lost at every size and were removed in the next commit, so
the probe needs that commit to run again.
"""

import argparse

import torch

import tilelab
from scripts.turns import planned, report_in_turns
from tilelab.ops import matmul as matmul_op


def probe(dtype: torch.dtype, size: int, rounds: int) -> None:
    a = torch.randn(size, size, device="cuda").to(dtype)
    b = torch.randn(size, size, device="cuda").to(dtype)
    variants = {"torch": lambda: torch.mm(a, b),
                "copies onto lines": planned(lambda: tilelab.matmul(a, b), ALIGN_COPY_MIN_WORK=0),
                "no copies": planned(lambda: tilelab.matmul(a, b), ALIGN_COPY_MIN_WORK=float("inf"))}
    matmul_op.ALIGN_COPY_MIN_WORK, saved = 0, matmul_op.ALIGN_COPY_MIN_WORK
    plan = matmul_op.describe_plan(a, b)
    matmul_op.ALIGN_COPY_MIN_WORK = saved
    print(f"{size}^3 {dtype}: with copies, path {plan['path']}, copied {plan['row_copies']}", flush=True)
    report_in_turns(f"== {size}^3 {dtype} ({size * size * size:.2e} multiply-adds)", variants, rounds,
                    reference=(a.double() @ b.double()) if size <= 3000 else None)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    for size in (1000, 1500, 2000, 3000, 5000):
        probe(torch.float16, size, args.rounds)
    for size in (1500, 3000):
        probe(torch.bfloat16, size, args.rounds)


if __name__ == "__main__":
    main()
