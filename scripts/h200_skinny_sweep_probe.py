"""Split-K tiles the tuner never times, at the two skinny default shapes (H200).

    PYTHONPATH=src:. python scripts/h200_skinny_sweep_probe.py [--rounds 3] [--rows 16 128]

The read floor probe (results/h200-stream-floor-probe.log, call FFFFFFF) put a plain 32 MiB read at 15.1 us
under kernel-bench's timing, where the shipped split-K tiles take 17.3 us (16 rows) and 18.5 us (128 rows).
The read got there with 256+ programs of 8 warps, each loading 16 KB at a time; the tuner's split-K
candidates for these shapes have 4 warps, 64-column tiles and 128 programs. This times, cold L2 and in turns
with torch.mm and the default: wider tiles (128 and 256 columns), 8 warps, deeper pipelines and finer splits,
through pointers and through TMA (`launch_split_k` with both operands' layouts).
"""

import argparse
import itertools
import statistics

import torch

import tilelab
from tilelab import tuning
from tilelab.bench import timing
from tilelab.ops import matmul_hopper
from tilelab.ops.matmul_plan import operand_layout

SHARED_BUDGET = 227 * 1024


def configs(m: int) -> list[tuple[matmul_hopper.HopperConfig, bool]]:
    """(config, through TMA) pairs: what fits in shared memory and makes 64..512 programs."""
    block_ms = (16,) if m <= 16 else (64, 128)
    picked = []
    for bm, bn, bk, warps, stages, split in itertools.product(block_ms, (32, 64, 128, 256), (64, 128),
                                                              (4, 8), (4, 8), (1, 2, 4, 8)):
        programs = -(-m // bm) * (4096 // bn) * split
        shared = (bm + bn) * bk * 2 * stages
        if not 128 <= programs <= 512 or shared > SHARED_BUDGET or bm * bn < 16 * 64:
            continue
        wide = bn >= 128 if m <= 16 else bm * bn >= 128 * 128
        if warps == 8 and not wide or warps == 4 and bm * bn >= 16 * 256 and m <= 16 or (
                warps == 4 and m > 16 and wide):
            continue  # 8 warps for the wide tiles (at 16 rows, 4 and 8 warps for 128 columns)
        config = matmul_hopper.HopperConfig(bm, bn, bk, 8, num_warps=warps, num_stages=stages,
                                            epilogue_subtile=False, split_k=split)
        picked.append((config, False))
        if bn >= 64 and stages == 4:
            picked.append((config, True))
    return picked


def split_variant(a3, b3, config, layouts):
    """One split-K launch into its own C; through TMA when `layouts` names both operands' layouts."""
    m, k = a3.shape[1:]
    n = b3.shape[2]
    c3 = torch.empty(1, m, n, device=a3.device, dtype=a3.dtype)

    def launch():
        matmul_hopper.launch_split_k(a3, b3, c3, m, n, k, "tf32", config, **layouts)
        return c3[0]
    return launch


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--samples", type=int, default=10)
    parser.add_argument("--rows", type=int, nargs="+", default=[16, 128])
    parser.add_argument("--dtype", default="float16")
    args = parser.parse_args()
    dtype = getattr(torch, args.dtype)
    torch.manual_seed(0)
    for m in args.rows:
        a = torch.randn(m, 4096, device="cuda").to(dtype)
        b = torch.randn(4096, 4096, device="cuda").to(dtype)
        a3, b3 = a.unsqueeze(0), b.unsqueeze(0)
        reference = a.double() @ b.double()
        variants = {"torch.mm": lambda a=a, b=b: torch.mm(a, b), "default": lambda a=a, b=b: tilelab.matmul(a, b)}
        layouts = {"a_layout": operand_layout(a3), "b_layout": operand_layout(b3)}
        for config, tma in configs(m):
            variants[f"{'tma' if tma else 'ptr'} {config.label()}"] = split_variant(
                a3, b3, config, layouts if tma else {})
        for name, fn in list(variants.items()):
            try:
                out = fn()
                torch.cuda.synchronize()
            except Exception as error:  # a config that does not compile is a result too
                print(f"{name}: failed ({type(error).__name__}: {str(error)[:100]})", flush=True)
                del variants[name]
                continue
            error = ((out.double() - reference).norm() / reference.norm()).item()
            if error > 2e-3:
                print(f"{name}: wrong ({error:.1e}); dropped", flush=True)
                del variants[name]
        times = {name: [] for name in variants}
        for turn in range(args.rounds):
            for name in timing.in_turn(list(variants), turn):
                times[name].append(tuning.measure_ms(variants[name], args.samples) * 1000)
        torch_us = statistics.median(times["torch.mm"])
        print(f"== {m}x4096x4096 {args.dtype}: cold L2, median of {args.rounds} rounds of {args.samples} "
              f"(us; torch.mm = 1), fastest first", flush=True)
        for name in sorted(variants, key=lambda n: statistics.median(times[n])):
            us = statistics.median(times[name])
            print(f"  {name:40s} {us:6.2f} us  {torch_us / us:5.3f}x", flush=True)


if __name__ == "__main__":
    main()
