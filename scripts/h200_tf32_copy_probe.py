"""How much of a tf32 matmul is the K-major copy of B (run on the H200).

    PYTHONPATH=src:. python scripts/h200_tf32_copy_probe.py

tf32 at 4096^3 measured 0.90x torch (call P) and the copy of B was blamed for the gap. This times, in turns
and cold as kernel-bench does: torch.mm with TF32 allowed, tilelab.matmul (copy included), tilelab on a B that
is already K-major (no copy), the copy alone (`transposed_copy`) and a plain copy of the same bytes.
"""

import torch

import tilelab
from scripts.turns import first_calls, medians_in_turns
from tilelab.ops.matmul import transposed_copy


def main() -> None:
    torch.backends.cuda.matmul.allow_tf32 = True
    for n in (4096, 8192):
        a = torch.randn(n, n, device="cuda")
        b = torch.randn(n, n, device="cuda")
        b_k_major = b.t().contiguous().t()  # the same values, stored [N, K]
        variants = {"torch.mm (TF32)": lambda a=a, b=b: torch.mm(a, b),
                    "tilelab (copy of B included)": lambda a=a, b=b: tilelab.matmul(a, b),
                    "tilelab, B already K-major": lambda a=a, b=b_k_major: tilelab.matmul(a, b),
                    "transposed_copy(B) alone": lambda b=b: transposed_copy(b[None]),
                    "B.clone() (same bytes)": lambda b=b: b.clone()}
        first_calls(variants)
        medians = medians_in_turns(variants, 6)
        torch_ms = medians["torch.mm (TF32)"]
        print(f"== {n}^3 float32, tf32", flush=True)
        for name, ms in medians.items():
            print(f"  {name:32s} {ms * 1e3:8.1f} us  ({ms / torch_ms:.3f} of torch.mm; {torch_ms / ms:.3f}x)",
                  flush=True)


if __name__ == "__main__":
    main()
