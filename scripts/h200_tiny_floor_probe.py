"""How close is 127x255x65 to the floor kernel-bench can measure? (run on the H200)

    PYTHONPATH=src:. python scripts/h200_tiny_floor_probe.py [--rounds 8]

The fp16 default sweep times 127x255x65 at about 5.8 us for torch.mm and for tilelab (events around one call,
after an L2 flush that leaves 100 MB of dirty lines). This probe times, the same way and in turns: an empty
kernel on 1 and on 32 programs; a kernel that only copies the tiles a matmul reads (16x128 of A and 128x64 of
B per program, no dot) and writes C; the default call; several tiles forced; torch.mm. Cold and warm L2.
"""

import argparse
import statistics

import torch
import triton
import triton.language as tl

import tilelab
from tilelab.bench.timing import L2Flusher, time_events
from tilelab.tuning import Config

M, N, K = 127, 255, 65


@triton.jit
def empty_kernel(x_ptr):
    pass


@triton.jit
def touch_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                 BLOCK_K: tl.constexpr):
    """What one program of the 16x64x128 tile reads and writes, without the dot: a sum stands in for it."""
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    a = tl.load(a_ptr + rows[:, None] * K + ks[None, :], mask=(rows[:, None] < M) & (ks[None, :] < K), other=0.0)
    b = tl.load(b_ptr + ks[:, None] * N + cols[None, :], mask=(ks[:, None] < K) & (cols[None, :] < N), other=0.0)
    value = tl.sum(a.to(tl.float32), axis=1)[:, None] + tl.sum(b.to(tl.float32), axis=0)[None, :]
    tl.store(c_ptr + rows[:, None] * N + cols[None, :], value.to(tl.float16),
             mask=(rows[:, None] < M) & (cols[None, :] < N))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--samples", type=int, default=30)
    parser.add_argument("--tile", action="append", help="BMxBNxBK-wW-sS, repeatable (default: a set of eight)")
    parser.add_argument("--no-floor", action="store_true", help="skip the empty and copy-only kernels")
    args = parser.parse_args()
    torch.manual_seed(0)
    a = torch.randn(M, K, device="cuda").half()
    b = torch.randn(K, N, device="cuda").half()
    c = torch.empty(M, N, device="cuda", dtype=torch.float16)
    flusher = L2Flusher(torch.device("cuda"), torch.cuda.get_device_properties(0).L2_cache_size)
    variants = {} if args.no_floor else {
        "empty kernel, 1 program": lambda: empty_kernel[(1,)](a),
        "empty kernel, 32 programs": lambda: empty_kernel[(32,)](a),
        "copy only, 16x64x128 tiles": lambda: touch_kernel[(triton.cdiv(M, 16), triton.cdiv(N, 64))](
            a, b, c, M, N, K, BLOCK_M=16, BLOCK_N=64, BLOCK_K=128),
    }
    variants["torch.mm"] = lambda: torch.mm(a, b)
    variants["tilelab.matmul (default)"] = lambda: tilelab.matmul(a, b)
    for tile in args.tile or ["16x64x128-w4-s4", "32x32x128-w4-s3", "16x32x128-w4-s2", "16x128x128-w4-s2",
                              "32x64x128-w4-s2", "64x64x128-w4-s2", "16x64x128-w2-s1", "16x16x128-w1-s1"]:
        dims, warps, stages = tile.split("-")
        bm, bn, bk = (int(x) for x in dims.split("x"))
        config = Config(bm, bn, bk, 8, int(warps[1:]), int(stages[1:]))
        variants[f"tilelab, {tile}"] = lambda config=config: tilelab.matmul(a, b, config=config)
    reference = a.double() @ b.double()
    for name, fn in list(variants.items()):
        try:
            out = fn()
        except Exception as error:  # a tile that does not compile is a result too
            print(f"{name}: failed ({type(error).__name__}: {str(error)[:120]}); dropped")
            del variants[name]
            continue
        if "tilelab" in name or name == "torch.mm":
            error = ((out.double() - reference).norm() / reference.norm()).item()
            if error > 2e-3:
                print(f"{name}: wrong ({error:.1e}); dropped")
                del variants[name]
    torch.cuda.synchronize()
    for cache, flush in (("cold", flusher), ("warm", None)):
        samples = {name: [] for name in variants}
        for _ in range(args.rounds):
            for name, fn in variants.items():
                result = time_events(lambda fn=fn: fn(), [()], warmup=3, samples=args.samples, flush=flush)
                samples[name].append(statistics.median(result.samples_ms) * 1000)
        torch_us = statistics.median(samples["torch.mm"])
        print(f"== {M}x{N}x{K} fp16, CUDA events, {cache} L2: median over {args.rounds} rounds of "
              f"{args.samples} (us; torch.mm = 1)", flush=True)
        for name, values in samples.items():
            us = statistics.median(values)
            print(f"  {name:34s} {us:6.2f} us  {torch_us / us:5.2f}x", flush=True)


if __name__ == "__main__":
    main()
