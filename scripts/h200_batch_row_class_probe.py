"""Do batches gain from reading A's rows in classes, as one GEMM does at 1000^3? (run on the H200)

    PYTHONPATH=src:. python scripts/h200_batch_row_class_probe.py [--rounds 10] [--quick]

`tilelab.ops.matmul_plan.row_classes` now answers for batches too: the persistent kernel (the default for these
batches) and the descriptor kernel describe A and C in 4-D, [batch, classes, rows / classes, K]. Each batch
here has A's and B's rows 16 bytes into a 32-byte sector, as the rule asks. Variants, each its recorded
launch (tilelab.matmul's replay), against torch.matmul, in turns:

- "classes": the default, tuned (`tilelab.pretune`, which times the persistent kernel's candidates);
- "no classes": the default with the rule switched off (ROW_CLASS_MIN_M out of reach): the shipped tuning;
- "descriptor classes": path="descriptor", tuned on its first call (one program per tile, 4-D descriptors).
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

# (batch, M, N, K, B stored [N, K]); every row of A and B 16 bytes into a sector.
SHAPES = [(16, 1000, 1000, 1000, False), (16, 1000, 1000, 1000, True), (8, 2000, 1000, 1000, False),
          (16, 1000, 1000, 3000, False)]


def recorded(a, b, path=None, **patch):
    """tilelab.matmul(a, b, path=path), tuned and planned under `patch`, then its recorded launch; and the plan."""
    matmul_op._REPLAYS.clear()
    with mock.patch.multiple(matmul_op, **patch) if patch else contextlib.nullcontext():
        if path is None:
            tilelab.pretune([(a.shape[0], a.shape[1], b.shape[2], a.shape[2])], dtypes=(a.dtype,), paths=(None,),
                            b_layout="nk" if b.stride(1) == 1 else "kn")
        tilelab.matmul(a, b, path=path)
        plan = matmul_op.describe_plan(a, b, path=path)
    (replay,) = matmul_op._REPLAYS.values()
    return (lambda: replay(a, b)), plan


def describe(name, plan):
    config = plan["config"] or {}
    print(f"  {name}: {plan['path']}, {plan['row_classes']} classes, {config.get('block_m')}x{config.get('block_n')}"
          f"x{config.get('block_k')} s{config.get('num_stages')} w{config.get('num_warps')}"
          f"{' flat' if config.get('flatten') else ''}{' sub' if config.get('epilogue_subtile') else ''}, "
          f"{plan.get('programs')} programs", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--quick", action="store_true", help="16x1000^3 only, both dtypes")
    args = parser.parse_args()
    cases = [(dtype, shape) for dtype in (torch.float16, torch.bfloat16) for shape in SHAPES
             if dtype == torch.float16 or shape == SHAPES[0]]
    if args.quick:
        cases = [(dtype, SHAPES[0]) for dtype in (torch.float16, torch.bfloat16)]
    for dtype, (batch, m, n, k, b_nk) in cases:
        a = torch.randn(batch, m, k, device="cuda", dtype=dtype)
        b = (torch.randn(batch, n, k, device="cuda", dtype=dtype).transpose(1, 2) if b_nk
             else torch.randn(batch, k, n, device="cuda", dtype=dtype))
        variants = {"torch": functools.partial(torch.matmul, a, b)}
        for name, path, patch in (("classes", None, {}), ("no classes", None, {"ROW_CLASS_MIN_M": 1 << 40}),
                                  ("descriptor classes", "descriptor", {})):
            if name == "descriptor classes" and (b_nk or dtype != torch.float16):
                continue
            variants[name], plan = recorded(a, b, path, **patch)
            describe(name, plan)
        layout = "B [N, K]" if b_nk else "B [K, N]"
        report_in_turns(f"{batch}x{m}x{n}x{k} {layout} {dtype}", variants, args.rounds,
                        reference=matmul_reference(a, b))


if __name__ == "__main__":
    main()
