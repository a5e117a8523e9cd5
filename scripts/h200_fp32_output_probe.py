"""fp16/bf16 inputs, float32 C: the default path (pingpong's 5-stage configuration where it takes pingpong)
against the persistent kernel and torch, in turns, cold L2 (H200).

    PYTHONPATH=src:. python scripts/h200_fp32_output_probe.py [--rounds 10] [--shape M,N,K ...]

torch's own float32-output product is `torch.mm(a, b, out_dtype=torch.float32)` where this torch has it
(2.9 and later), else `torch.mm(a.float(), b.float())` with TF32 allowed, which is not the same work (noted).
"""

import argparse

import torch

import tilelab
from scripts.turns import report_in_turns
from tilelab.ops.matmul import describe_plan

SHAPES = [(8192, 8192, 1024), (4096, 11008, 4096), (4096, 4096, 4096)]


def torch_float32_output(a, b):
    try:
        torch.mm(a[:8, :8], b[:8, :8], out_dtype=torch.float32)
        return "torch.mm(out_dtype=float32)", lambda: torch.mm(a, b, out_dtype=torch.float32)
    except TypeError:
        torch.backends.cuda.matmul.allow_tf32 = True
        a32, b32 = a.float(), b.float()
        return "torch.mm on float32 copies, TF32", lambda: torch.mm(a32, b32)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--dtype", default="float16", choices=["float16", "bfloat16"])
    parser.add_argument("--shape", action="append", help="M,N,K (repeatable; default: SHAPES)")
    args = parser.parse_args()
    dtype = getattr(torch, args.dtype)
    shapes = [tuple(int(x) for x in s.split(",")) for s in args.shape] if args.shape else SHAPES
    for m, n, k in shapes:
        a = torch.randn(m, k, device="cuda", dtype=dtype)
        b = torch.randn(k, n, device="cuda", dtype=dtype)
        reference = a.double() @ b.double()
        torch_name, torch_run = torch_float32_output(a, b)
        plan = describe_plan(a, b, out_dtype=torch.float32)
        variants = {
            "torch": torch_run,
            "tilelab.matmul(out_dtype=float32)": lambda a=a, b=b: tilelab.matmul(a, b, out_dtype=torch.float32),
            "path='persistent'": lambda a=a, b=b: tilelab.matmul(a, b, out_dtype=torch.float32, path="persistent"),
            "torch.mm, C in the input dtype": lambda a=a, b=b: torch.mm(a, b),
        }
        title = (f"== {m}x{n}x{k} {args.dtype} -> float32 (torch: {torch_name}; default plan: {plan['path']} "
                 f"{plan.get('config', {})})")
        report_in_turns(title, variants, args.rounds, reference=reference)


if __name__ == "__main__":
    main()
