"""3000^3 and 5000^3: which persistent tile suits a problem whose tiles leave a poor last wave? (run on the H200)

    PYTHONPATH=src:. python scripts/h200_wave_probe.py [--rounds 6] [--padded] [SIZE ...]

Both sizes fall in 4096^3's tuning bucket and take its tile, 128x256: 3000^3 makes 288 such tiles for 132
SMs (2.2 waves of work done in 3 rounds) and 5000^3 makes 800 (6.1 waves in 7). They measured 0.63x and
0.70x torch (results/h200-row-copy-probe.log). This times every persistent candidate at the size itself, in
turns with torch and the default, prints each one's tile count and rounds, and names the kernel torch ran.
`--padded` instead times the default on the caller's rows against the same values in rows padded to a
multiple of 64 elements (128-byte lines): what misaligned rows cost at that size.
"""

import argparse

import torch

import tilelab
from scripts.turns import report_in_turns
from tilelab.bench.kernels import launched_kernels, short_name
from tilelab.ops import matmul_hopper
from tilelab.ops.matmul import describe_plan
from tilelab.tuning import ceil_div, tile_count


def probe(size: int, dtype: torch.dtype, rounds: int) -> None:
    a = torch.randn(size, size, device="cuda").to(dtype)
    b = torch.randn(size, size, device="cuda").to(dtype)
    sms = matmul_hopper.device_sms(a.device)
    print(f"torch ran: {[short_name(n) for n in launched_kernels(torch.mm, a, b)]}", flush=True)
    print(f"default plan: {describe_plan(a, b)}", flush=True)
    variants = {"torch": lambda: torch.mm(a, b), "library default": lambda: tilelab.matmul(a, b)}
    for config in matmul_hopper.PERSISTENT_CANDIDATES:
        tiles = tile_count(size, size, config)
        programs = matmul_hopper.balanced_programs(tiles, sms)
        name = f"{config.label()} ({tiles} tiles, {ceil_div(tiles, programs)} rounds of {programs})"
        variants[name] = lambda c=config: tilelab.matmul(a, b, path="persistent", config=c)
    report_in_turns(f"== {size}^3 {dtype}", variants, rounds, by_time=True)


def padded_rows(size: int, dtype: torch.dtype, rounds: int) -> None:
    a = torch.randn(size, size, device="cuda").to(dtype)
    b = torch.randn(size, size, device="cuda").to(dtype)
    a_lines, b_lines = tilelab.to_aligned(a), tilelab.to_aligned(b)  # fp16/bf16 rows padded to 64 elements
    width = a_lines.stride(0)
    variants = {"torch": lambda: torch.mm(a, b), "library default": lambda: tilelab.matmul(a, b),
                f"default, rows padded to {width}": lambda: tilelab.matmul(a_lines, b_lines),
                f"torch, rows padded to {width}": lambda: torch.mm(a_lines, b_lines)}
    report_in_turns(f"== {size}^3 {dtype}", variants, rounds)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("sizes", nargs="*", type=int, default=[3000, 5000])
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--padded", action="store_true")
    args = parser.parse_args()
    for size in args.sizes:
        for dtype in (torch.float16, torch.bfloat16):
            (padded_rows if args.padded else probe)(size, dtype, args.rounds)


if __name__ == "__main__":
    main()
