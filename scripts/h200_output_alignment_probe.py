"""1000^3: does starting every row of C on a 128-byte line help the TMA store? (run on the H200)

    PYTHONPATH=src:. python scripts/h200_output_alignment_probe.py [--rounds 10]

The descriptor and persistent paths allocated C with rows padded to 16 bytes (`padded_row_stride`): 1000
fp16 elements stay 1000, 2000-byte rows, most of which start mid-way through a 128-byte line, like A's and
B's (whose misalignment costs 2.6-2.9 us, results/h200-misaligned-probe.log). This times the default with C's
rows padded to 16 bytes and to 128 bytes (1024 elements), in turns with torch (cold L2). Both planned variants
plan every call (no replays), so they pay the same host work. (Run in call EEE, before `output_row_stride`
made 128 bytes the library's own padding.)
"""

import argparse

import torch

import tilelab
from scripts.turns import planned, report_in_turns
from tilelab.ops import matmul as matmul_op

LINE = 128  # bytes


def line_aligned_stride(real):
    def stride(width: int, element_size: int) -> int:
        padded = real(width, element_size)
        per_line = LINE // element_size
        return -(-padded // per_line) * per_line if width * element_size >= LINE else padded
    return stride


def probe(dtype: torch.dtype, size: int, rounds: int) -> None:
    a = torch.randn(size, size, device="cuda").to(dtype)
    b = torch.randn(size, size, device="cuda").to(dtype)
    aligned = line_aligned_stride(matmul_op.padded_row_stride)
    print(f"C row stride: {matmul_op.padded_row_stride(size, a.element_size())} elements, line-aligned: "
          f"{aligned(size, a.element_size())}", flush=True)
    variants = {"torch": lambda: torch.mm(a, b), "library default (replayed)": lambda: tilelab.matmul(a, b),
                "planned, C rows 16-byte padded": planned(lambda: tilelab.matmul(a, b)),
                "planned, C rows 128-byte padded": planned(lambda: tilelab.matmul(a, b), padded_row_stride=aligned)}
    report_in_turns(f"== {size}^3 {dtype}", variants, rounds, reference=a.double() @ b.double(), by_time=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    for dtype in (torch.float16, torch.bfloat16):
        for size in (1000, 3000):
            probe(dtype, size, args.rounds)


if __name__ == "__main__":
    main()
