"""Rows TMA cannot read (not 16-byte aligned): copy them onto lines first, from what size? (run on the H200)

    PYTHONPATH=src:. python scripts/h200_unaligned_copy_probe.py [--rounds 10]

Call PPPPPPPPPP (results/h200-b-copy-probe-2.log) found that at 1500^3 and 2500^3 fp16, whose rows are 8-byte
aligned and so run on the pointer path, copying A and B onto 128-byte lines and then multiplying on the TMA
paths took 27.2 and 77.7 us against the default's 38.3 and 112.4 (torch 63.5 and 193.5). This times, in turns
with torch (cold L2), the default against the same copies (only of the operands TMA cannot read; the probe's
Triton copy, 16-byte vectors where the rows allow) and against operands already on lines, at sizes from small
to large, skinny ones, odd sides (2-byte aligned rows) and a vocabulary-sized N.
"""

import torch

import tilelab
from scripts.h200_b_copy_probe import describe, triton_copy
from scripts.turns import report_in_turns, rounds_argument
from tilelab.ops.matmul_plan import operand_layout

SHAPES = [  # (M, N, K, dtype)
    (8, 1024, 1001, torch.float16), (300, 300, 300, torch.float16), (604, 604, 604, torch.float16),
    (1004, 1004, 1004, torch.float16), (1001, 1001, 1001, torch.float16), (1024, 1024, 1001, torch.float16),
    (1500, 1500, 1500, torch.float16), (2004, 2004, 2004, torch.float16), (4100, 4100, 4100, torch.float16),
    (16, 4100, 4100, torch.float16), (128, 4100, 4100, torch.float16), (512, 4100, 4100, torch.float16),
    (4096, 50257, 1024, torch.float16), (1500, 1500, 1500, torch.bfloat16), (4100, 4100, 4100, torch.bfloat16),
]


def unreadable(x: torch.Tensor) -> bool:
    return not operand_layout(x[None]).tma_ok


def probe(m: int, n: int, k: int, dtype: torch.dtype, rounds: int) -> None:
    a = torch.randn(m, k, device="cuda", dtype=dtype)
    b = torch.randn(k, n, device="cuda", dtype=dtype)
    a_lines, b_lines = tilelab.to_aligned(a), tilelab.to_aligned(b)
    a_kept = tilelab.empty_aligned(m, k, dtype=dtype, device="cuda")
    b_kept = tilelab.empty_aligned(k, n, dtype=dtype, device="cuda")
    copy_a, copy_b = unreadable(a), unreadable(b)

    def copied():
        return tilelab.matmul(triton_copy(a, a_kept) if copy_a else a, triton_copy(b, b_kept) if copy_b else b)

    variants = {
        "torch": lambda: torch.mm(a, b),
        "default": lambda: tilelab.matmul(a, b),
        f"copies ({'A' if copy_a else ''}{'B' if copy_b else ''}), then default": copied,
        "floor: on lines already": lambda: tilelab.matmul(a_lines if copy_a else a, b_lines if copy_b else b),
    }
    print(f"== {m}x{n}x{k} {str(dtype).removeprefix('torch.')}", flush=True)
    describe("default", a, b)
    describe("on lines", a_lines if copy_a else a, b_lines if copy_b else b)
    reference = a.double() @ b.double() if m * n * k <= 2 ** 33 else None
    report_in_turns(f"{m}x{n}x{k}", variants, rounds, reference=reference, by_time=True)


def main() -> None:
    rounds = rounds_argument(10)
    for m, n, k, dtype in SHAPES:
        probe(m, n, k, dtype, rounds)


if __name__ == "__main__":
    main()
