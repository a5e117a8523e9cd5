"""Three questions left open by the fourth session (run on the H200).

    PYTHONPATH=src:. python scripts/h200_session5_probe.py [--rounds 5] [--only tiny,ragged,fp8]

- tiny: 127x255x65 fp16 is tuned to 64x32x64 (9.95 us when tuned) while bf16, same layout and bucket, is
  tuned to 16x64x128 (6.5 us). Was the fp16 entry a noisy pick? The pointer candidates, in turns.
- ragged: 1000^3 takes 12-13 us on the descriptor path, 1024^3 about 10. Every row of a 1000-wide fp16
  matrix is 2000 bytes: 16-byte aligned, so TMA accepts it, but not 128-byte aligned. Which operand's
  misalignment costs? 1000^3 against the same problem on padded rows (views of 1024-wide buffers), and shapes
  where only A (1000x1024x1000) or only B and C (1024x1000x1024) have 2000-byte rows.
- fp8: does fusing the persistent kernel's tile and K loops (FLATTEN: the next tile's loads overlap this
  tile's epilogue) help fp8 at 8192^3, where a tile's K loop is half as long in time as fp16's?
Variants take turns with torch; each is timed with tuning.measure_ms (events, cold L2).
"""

import argparse

import torch

import tilelab
from scripts.turns import first_calls, medians_in_turns
from tilelab.ops.matmul_hopper import HopperConfig
from tilelab.ops.scaled_matmul import scaled_matmul
from tilelab.tuning import Config


def report(title: str, variants: dict, rounds: int, reference=None, baseline: str = "torch") -> None:
    outputs = first_calls(variants)
    errors = {}
    if reference is not None:
        errors = {name: ((out.double() - reference).norm() / reference.norm()).item() for name, out in outputs.items()}
    medians = medians_in_turns(variants, rounds)
    base = medians[baseline]
    print(f"{title}: {baseline} {base * 1e3:8.2f} us", flush=True)
    for name, ms in medians.items():
        err = f" err {errors[name]:.1e}" if name in errors else ""
        print(f"  {name:58s} {ms * 1e3:8.2f} us ({base / ms:.3f}x {baseline}){err}", flush=True)


def tiny(rounds: int) -> None:
    configs = [Config(16, 64, 128, 8, 4, 4), Config(64, 32, 64, 8, 4, 5), Config(32, 64, 128, 8, 4, 4),
               Config(16, 128, 128, 8, 4, 3), Config(64, 64, 64, 8, 4, 4), Config(64, 128, 128, 8, 4, 3),
               Config(32, 32, 128, 8, 4, 3), Config(16, 64, 128, 8, 4, 2), Config(32, 64, 64, 8, 4, 3)]
    for dtype in (torch.float16, torch.bfloat16):
        a = torch.randn(127, 65, device="cuda").to(dtype)
        b = torch.randn(65, 255, device="cuda").to(dtype)
        variants = {"torch": lambda a=a, b=b: torch.mm(a, b), "library default": lambda a=a, b=b: tilelab.matmul(a, b)}
        for c in configs:
            variants[f"pointer {c.label()}"] = lambda a=a, b=b, c=c: tilelab.matmul(a, b, path="pointer", config=c)
        report(f"127x255x65 {dtype}", variants, rounds, a.double() @ b.double())


def padded(rows: int, cols: int, width: int, dtype) -> torch.Tensor:
    """[rows, cols] random values whose rows lie `width` elements apart."""
    buffer = torch.randn(rows, width, device="cuda").to(dtype)
    return buffer[:, :cols]


def ragged(rounds: int) -> None:
    tiles = [Config(128, 64, 128, 8, 4, 4), Config(64, 128, 128, 8, 4, 3)]
    for dtype in (torch.float16, torch.bfloat16):
        problems = {
            "1000^3": (padded(1000, 1000, 1000, dtype), padded(1000, 1000, 1000, dtype)),
            "1000^3, A and B rows padded to 1024": (padded(1000, 1000, 1024, dtype), padded(1000, 1000, 1024, dtype)),
            "1000x1024x1000 (A rows 2000 B)": (padded(1000, 1000, 1000, dtype), padded(1000, 1024, 1024, dtype)),
            "1024x1000x1024 (B, C rows 2000 B)": (padded(1024, 1024, 1024, dtype), padded(1024, 1000, 1000, dtype)),
            "1024^3": (padded(1024, 1024, 1024, dtype), padded(1024, 1024, 1024, dtype)),
        }
        for name, (a, b) in problems.items():
            variants = {"torch": lambda a=a, b=b: torch.mm(a, b),
                        "library default": lambda a=a, b=b: tilelab.matmul(a, b)}
            for c in tiles:
                variants[f"descriptor {c.label()}"] = (
                    lambda a=a, b=b, c=c: tilelab.matmul(a, b, path="descriptor", config=c))
            report(f"{name} {dtype}", variants, rounds, a.double() @ b.double())


def fp8(rounds: int) -> None:
    size = 8192
    a = torch.randn(size, size, device="cuda").to(torch.float8_e4m3fn)
    b = torch.randn(size, size, device="cuda").to(torch.float8_e4m3fn).t()  # K-major
    one = torch.ones((), device="cuda")
    for fast in (True, False):
        variants = {"torch": lambda f=fast: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16,
                                                                use_fast_accum=f),
                    "library default": lambda f=fast: scaled_matmul(a, b, one, one, use_fast_accum=f)}
        tiles = [(128, 256, 3), (128, 256, 4), (256, 128, 3)]
        for bm, bn, stages in tiles:
            for flatten in (False, True):
                c = HopperConfig(bm, bn, 128, 8, num_warps=8, num_stages=stages, flatten=flatten)
                variants[f"fp8 {c.label()}"] = (
                    lambda c=c, f=fast: scaled_matmul(a, b, one, one, use_fast_accum=f, config=c))
        report(f"fp8 {size}^3 {'fast' if fast else 'promoted'} accumulation, bf16 out", variants, rounds)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--only", default="tiny,ragged,fp8")
    args = parser.parse_args()
    for part in args.only.split(","):
        {"tiny": tiny, "ragged": ragged, "fp8": fp8}[part](args.rounds)


if __name__ == "__main__":
    main()
