"""Copy only B onto 128-byte lines before a large matmul: does it pay now? (run on the H200)

    PYTHONPATH=src:. python scripts/h200_b_copy_probe.py [--rounds 10]

The ninth session copied A and B onto lines inside `tilelab.matmul` and lost at every size
(`results/h200-row-copy-probe.log`, call FFF): 3000^3 151 against 127 us. Since then A's rows are read in
classes (sixteenth session), so only B's rows, K's, are still read off sectors, and B is what the L2 reads
most at large shapes (128x256 tiles read B once per row of tiles: 24 times at 3000^3 against A's 12). On
lines the same problem takes 83-86 us (torch 79-81). So: copy B alone, once per call, then multiply.

Timed in turns with torch (cold L2), per shape: the default; B copied onto lines by torch's `copy_` into a
fresh `tilelab.empty_aligned` each call, then multiplied; the same copy by a small Triton kernel into a kept
buffer (2-byte loads in call OOOOOOOOOO, 16-byte vectors since); A and B both copied, each way; and, as
floors, the default on B already on lines and on both already on lines. The copies alone are timed too, in
turns of their own. Rows that are not even 16-byte aligned (1500, 2500) cannot be read by TMA at all and run
on the pointer path: there the copy also opens the TMA paths.
"""

import torch

import tilelab
from scripts.turns import report_in_turns, rounds_argument
from tilelab.ops import line_copies
from tilelab.ops import matmul as matmul_op

SHAPES = [  # (M, N, K, dtype); call OOOOOOOOOO ran the first four, then stopped on a bug since mended
    (3000, 3000, 3000, torch.float16), (5000, 5000, 5000, torch.float16), (2600, 2600, 2600, torch.float16),
    (4096, 3000, 4096, torch.float16), (3000, 3000, 1000, torch.float16), (1000, 1000, 4000, torch.float16),
    (1000, 1000, 1000, torch.float16), (1500, 1500, 1500, torch.float16), (2500, 2500, 2500, torch.float16),
    (3000, 3000, 3000, torch.bfloat16), (5000, 5000, 5000, torch.bfloat16),
]


def triton_copy(src: torch.Tensor, dst: torch.Tensor) -> torch.Tensor:
    """src's rows into dst's, by the library's copy (`tilelab.ops.line_copies.copy_rows`). Calls OOOOOOOOOO to
    QQQQQQQQQQ ran the probe's own kernel, which the library's took over unchanged: the same runs of up to 16
    bytes, 4 rows by 1024 elements a program, 4 warps."""
    line_copies.copy_rows(src[None], dst[None])
    return dst


def describe(name: str, a: torch.Tensor, b: torch.Tensor) -> None:
    plan = matmul_op.describe_plan(a, b)
    print(f"  {name}: {plan['path']} {str(plan['config'])[:160]} row_classes={plan.get('row_classes')}", flush=True)


def probe(m: int, n: int, k: int, dtype: torch.dtype, rounds: int) -> None:
    a = torch.randn(m, k, device="cuda", dtype=dtype)
    b = torch.randn(k, n, device="cuda", dtype=dtype)
    a_lines, b_lines = tilelab.to_aligned(a), tilelab.to_aligned(b)
    a_kept = tilelab.empty_aligned(m, k, dtype=dtype, device="cuda")
    b_kept = tilelab.empty_aligned(k, n, dtype=dtype, device="cuda")
    variants = {
        "torch": lambda: torch.mm(a, b),
        "default": lambda: tilelab.matmul(a, b),
        "B copied (torch copy_), then default": lambda: tilelab.matmul(a, tilelab.to_aligned(b)),
        "B copied (Triton, kept buffer), then default": lambda: tilelab.matmul(a, triton_copy(b, b_kept)),
        "A and B copied (torch), then default": lambda: tilelab.matmul(tilelab.to_aligned(a), tilelab.to_aligned(b)),
        "A and B copied (Triton, kept buffers), then default": lambda: tilelab.matmul(triton_copy(a, a_kept),
                                                                                      triton_copy(b, b_kept)),
        "floor: B already on lines": lambda: tilelab.matmul(a, b_lines),
        "floor: A and B already on lines": lambda: tilelab.matmul(a_lines, b_lines),
    }
    copies = {"torch": lambda: torch.mm(a, b),
              "copy of B alone (torch)": lambda: tilelab.to_aligned(b),
              "copy of B alone (Triton)": lambda: triton_copy(b, b_kept)}
    reference = a.double() @ b.double() if m * n * k <= 3000 ** 3 else None
    print(f"== {m}x{n}x{k} {str(dtype).removeprefix('torch.')}", flush=True)
    describe("default", a, b)
    describe("B on lines", a, b_lines)
    describe("A and B on lines", a_lines, b_lines)
    copied = triton_copy(b, b_kept)
    assert torch.equal(copied, b), "the Triton copy is wrong"
    report_in_turns(f"{m}x{n}x{k}", variants, rounds, reference=reference, by_time=True)
    medians = report_in_turns(f"{m}x{n}x{k}, the copies alone", copies, rounds)
    b_bytes = b.numel() * b.element_size()
    for name in ("copy of B alone (torch)", "copy of B alone (Triton)"):
        print(f"  {name}: {2 * b_bytes / (medians[name] * 1e-3) / 1e12:.2f} TB/s (read + write)", flush=True)


def main() -> None:
    rounds = rounds_argument(10)
    for m, n, k, dtype in SHAPES:
        probe(m, n, k, dtype, rounds)


if __name__ == "__main__":
    main()
