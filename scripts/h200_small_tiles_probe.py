"""Tiles for the small default shapes with more warps per SM (run on the H200).

    PYTHONPATH=src:. python scripts/h200_small_tiles_probe.py [--rounds 6] [--shape 512x512x512 ...]

Nsight Compute (call TTTTTTTT, `results/h200-small-anatomy-float16.log`) puts the default's kernels at
127x255x65 and 512^3 on one program of 4 warps per SM, each warp alone on its scheduler: the stall that
dominates is the issue itself ("selected"), then fixed-latency waits, so the time is about the instructions
one warp executes (1130 at 127x255x65, 1290 at 512^3) times a few cycles each. More warps per SM, each
executing fewer, should shorten it: 8 warps per program, or smaller tiles and more programs. This times such
tiles against the default and torch.mm in turns, as kernel-bench does (CUDA events around one call after an L2
flush, a GPU sleep first so the launches queue ahead), fp16 unless --dtype says otherwise.
"""

import argparse
import statistics

import torch

import tilelab
from tilelab.bench.timing import L2Flusher, time_events
from tilelab.tuning import Config

# path:BMxBNxBK-wW-sS per shape; the default and torch.mm are always timed.
TILES = {
    (127, 255, 65): [
        "pointer:16x32x128-w4-s2", "pointer:16x32x128-w8-s2", "pointer:16x32x128-w4-s1", "pointer:16x32x128-w8-s1",
        "pointer:16x32x64-w4-s2", "pointer:16x32x64-w8-s2", "pointer:16x32x32-w4-s3", "pointer:16x32x32-w8-s3",
        "pointer:16x16x128-w4-s2", "pointer:16x16x128-w8-s2", "pointer:16x16x64-w4-s2", "pointer:32x32x64-w8-s2",
        "pointer:16x64x64-w8-s2", "pointer:32x16x128-w4-s2",
    ],
    (512, 512, 512): [
        "pointer:64x32x64-w4-s5", "pointer:64x32x64-w8-s5", "pointer:64x32x64-w2-s5", "pointer:32x32x64-w4-s5",
        "pointer:32x32x64-w2-s5", "pointer:32x64x64-w4-s5", "pointer:64x64x64-w8-s4", "pointer:32x32x128-w4-s3",
        "pointer:64x32x128-w8-s3", "pointer:32x16x64-w4-s5", "pointer:16x32x64-w4-s5",
        "descriptor:64x32x64-w4-s5", "descriptor:32x64x64-w4-s5", "descriptor:64x64x64-w4-s4",
    ],
    (1000, 1000, 1000): [
        "descriptor:64x128x128-w4-s4", "descriptor:64x128x128-w8-s4", "descriptor:64x64x128-w4-s4",
        "descriptor:128x64x128-w4-s4", "descriptor:128x64x128-w8-s4", "descriptor:64x128x64-w4-s6",
        "descriptor:64x64x64-w4-s6", "descriptor:128x128x64-w8-s4", "descriptor:64x64x128-w8-s4",
    ],
    (1024, 1024, 1024): [
        "descriptor:64x128x128-w4-s4", "descriptor:64x128x128-w8-s4", "descriptor:64x64x128-w4-s4",
        "descriptor:128x64x128-w4-s4", "descriptor:128x64x128-w8-s4", "descriptor:64x128x64-w4-s6",
        "descriptor:64x64x64-w4-s6", "descriptor:128x128x64-w8-s4", "descriptor:64x64x128-w8-s4",
    ],
}


def parse_tile(text: str) -> tuple[str, Config]:
    path, tile = text.split(":")
    dims, warps, stages = tile.split("-")
    bm, bn, bk = (int(x) for x in dims.split("x"))
    return path, Config(bm, bn, bk, 8, int(warps[1:]), int(stages[1:]))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--samples", type=int, default=30)
    parser.add_argument("--dtype", default="float16", choices=["float16", "bfloat16"])
    parser.add_argument("--shape", action="append", help="MxNxK, repeatable (default: the four above)")
    args = parser.parse_args()
    dtype = getattr(torch, args.dtype)
    shapes = [tuple(int(d) for d in s.split("x")) for s in args.shape] if args.shape else list(TILES)
    flusher = L2Flusher(torch.device("cuda"), torch.cuda.get_device_properties(0).L2_cache_size)
    torch.manual_seed(0)
    for m, n, k in shapes:
        time_shape(m, n, k, dtype, flusher, args.rounds, args.samples)


def time_shape(m: int, n: int, k: int, dtype: torch.dtype, flusher: L2Flusher, rounds: int, samples: int) -> None:
    a = torch.randn(m, k, device="cuda", dtype=dtype)
    b = torch.randn(k, n, device="cuda", dtype=dtype)
    reference = a.double() @ b.double()
    variants = {"torch.mm": lambda: torch.mm(a, b), "tilelab default": lambda: tilelab.matmul(a, b)}
    for text in TILES.get((m, n, k), []):
        path, config = parse_tile(text)
        variants[text] = lambda path=path, config=config: tilelab.matmul(a, b, path=path, config=config)
    for name, fn in list(variants.items()):
        try:
            out = fn()
        except Exception as error:  # a tile that does not compile is a result too
            print(f"{name}: failed ({type(error).__name__}: {str(error)[:160]}); dropped", flush=True)
            del variants[name]
            continue
        error = ((out.double() - reference).norm() / reference.norm()).item()
        if error > 2e-3:
            print(f"{name}: wrong ({error:.1e}); dropped", flush=True)
            del variants[name]
    torch.cuda.synchronize()
    times = {name: [] for name in variants}
    for turn in range(rounds):  # forward, then back: a steady drift hits every variant alike
        for name, fn in (list(variants.items()) if turn % 2 == 0 else reversed(variants.items())):
            result = time_events(lambda fn=fn: fn(), [()], warmup=3, samples=samples, flush=flusher)
            times[name].append(statistics.median(result.samples_ms) * 1000)
    torch_us = statistics.median(times["torch.mm"])
    print(f"== {m}x{n}x{k} {str(dtype)[6:]}, CUDA events, cold L2: median over {rounds} rounds of {samples} "
          "(us; torch.mm = 1)", flush=True)
    for name, values in sorted(times.items(), key=lambda item: statistics.median(item[1])):
        us = statistics.median(values)
        print(f"  {name:34s} {us:6.2f} us  {torch_us / us:5.2f}x", flush=True)

if __name__ == "__main__":
    main()
