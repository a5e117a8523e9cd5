"""tf32 without copying B: compute C^T = B^T A^T, so B's rows become a K-major right operand (run on the H200).

    PYTHONPATH=src:. python scripts/h200_tf32_swap_probe.py [--rounds 5]

Hopper's tf32 wgmma reads both operands K-major from shared memory. tilelab copies a row-major B once
(`_with_k_major_b`, about 10% of a 4096^3 call). Swapped, the right operand A^T is already K-major and the
left operand B^T is M-major: Triton then transposes each A tile through shared memory inside the loop
(`tests/unit/test_hopper_compile.py` shows the extra ld/st.shared). Which costs less is only measurable.
Variants take turns with torch.mm (TF32 allowed); each is timed with tuning.measure_ms (events, cold L2).
"""

import argparse

import torch

import tilelab
from scripts.turns import first_calls, medians_in_turns
from tilelab.ops.matmul_hopper import HopperConfig


def probe(size: int, rounds: int) -> None:
    a = torch.randn(size, size, device="cuda")
    b = torch.randn(size, size, device="cuda")
    b_k_major = b.t().contiguous().t()  # what the copy produces, made once: the kernel alone
    variants = {
        "torch.mm (TF32)": lambda: torch.mm(a, b),
        "tilelab default (copy of B + persistent)": lambda: tilelab.matmul(a, b),
        "tilelab, B already K-major (no copy)": lambda: tilelab.matmul(a, b_k_major),
        "swapped: (B^T A^T)^T, default tile": lambda: tilelab.matmul(b.t(), a.t(), path="persistent").t(),
    }
    for bm, bn, warps, stages in ((128, 128, 8, 4), (128, 128, 4, 4), (128, 256, 8, 3)):
        config = HopperConfig(bm, bn, 32, 8, num_warps=warps, num_stages=stages)
        variants[f"swapped: {config.label()}"] = (
            lambda c=config: tilelab.matmul(b.t(), a.t(), path="persistent", config=c).t())
    reference = (a.double() @ b.double()) if size <= 4096 else None
    outputs = first_calls(variants)
    errors = {} if reference is None else {
        name: ((out.double() - reference).norm() / reference.norm()).item() for name, out in outputs.items()}
    previous = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = True
    try:
        medians = medians_in_turns(variants, rounds)
    finally:
        torch.backends.cuda.matmul.allow_tf32 = previous
    torch_ms = medians["torch.mm (TF32)"]
    print(f"{size}^3 float32/tf32: torch {torch_ms * 1e3:7.1f} us", flush=True)
    for name, ms in medians.items():
        err = f" err {errors[name]:.1e}" if name in errors else ""
        print(f"  {name:52s} {ms * 1e3:7.1f} us ({torch_ms / ms:.3f}x torch){err}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    for size in (4096, 8192):
        probe(size, args.rounds)


if __name__ == "__main__":
    main()
