"""Batched products (a B per entry) on the default path against torch.matmul, in turns, cold L2 (H200).

    PYTHONPATH=src:. python scripts/h200_batched_probe.py [--rounds 6] [--dtype float16]

Where tilelab stood on batches before kernel-bench had a batched op: attention's two products (B stored
[N, K] for QK^T), square batches, and batches of small or misaligned matrices.
"""

import argparse

import torch

import tilelab
from scripts.turns import report_in_turns
from tilelab.ops.matmul import describe_plan

# (batch, M, N, K, B stored [N, K])
CASES = [(32, 1024, 1024, 128, True), (32, 1024, 128, 1024, False), (8, 2048, 2048, 2048, False),
         (4, 4096, 4096, 4096, False), (64, 512, 512, 512, False), (256, 128, 128, 128, False),
         (16, 1000, 1000, 1000, False), (8, 4096, 4096, 1024, True)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--dtype", default="float16", choices=["float16", "bfloat16"])
    args = parser.parse_args()
    dtype = getattr(torch, args.dtype)
    for batch, m, n, k, b_nk in CASES:
        a = torch.randn(batch, m, k, device="cuda", dtype=dtype)
        b = (torch.randn(batch, n, k, device="cuda", dtype=dtype).transpose(1, 2) if b_nk
             else torch.randn(batch, k, n, device="cuda", dtype=dtype))
        reference = a.double() @ b.double()
        plan = describe_plan(a, b)
        variants = {"torch": lambda a=a, b=b: torch.matmul(a, b),
                    "tilelab.matmul": lambda a=a, b=b: tilelab.matmul(a, b)}
        tflop = 2 * batch * m * n * k / 1e12
        title = (f"== {batch}x{m}x{n}x{k}{' (B [N, K])' if b_nk else ''} {args.dtype}, {tflop * 1e3:.1f} GFLOP "
                 f"(plan: {plan['path']} {plan.get('config', {})})")
        report_in_turns(title, variants, args.rounds, reference=reference)


if __name__ == "__main__":
    main()
