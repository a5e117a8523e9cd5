"""How fast do TMA and plain loads read rows that start off 32-byte sectors? (run on the H200)

    PYTHONPATH=src:. python scripts/h200_row_alignment_read_probe.py [--rounds 6]

1000³'s 2000-byte rows start 16 bytes into a sector on every other row, and there the matmul loses 2.7 us
where torch loses 0.7-1.4 (docs/PERFORMANCE.md). This probe takes the matmul away and keeps the reads: each
program reads one [BLOCK_M, K] strip of an [M, K] fp16 matrix, box by box, as a matmul program reads A;
REPEAT programs read the same strip (as the N tiles of a matmul do), so after the first the reads hit L2.
Row widths 1000 (off sectors), 1008 (on sectors, off 128-byte lines) and 1024 (on lines), through tensor
descriptors (TMA) and through pointers, warm and cold L2. Reported: the bytes the programs asked for per second.
"""

import argparse
import statistics

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

from scripts.turns import medians_in_turns
from tilelab.bench.timing import time_events

M, REPEAT = 8192, 8


@triton.jit
def read_by_descriptor(a_desc, out_ptr, K, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr, REPEAT: tl.constexpr,
                       STAGES: tl.constexpr):
    strip = tl.program_id(0) // REPEAT
    total = tl.zeros([BLOCK_M, BLOCK_K], dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BLOCK_K), num_stages=STAGES):
        total += a_desc.load([strip * BLOCK_M, k * BLOCK_K]).to(tl.float32)
    tl.store(out_ptr + tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M), tl.sum(total, axis=1))


@triton.jit
def read_by_pointer(a_ptr, out_ptr, K, stride_m, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr,
                    REPEAT: tl.constexpr, STAGES: tl.constexpr):
    strip = tl.program_id(0) // REPEAT
    rows = strip * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_K)
    total = tl.zeros([BLOCK_M, BLOCK_K], dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BLOCK_K), num_stages=STAGES):
        ks = k * BLOCK_K + cols
        total += tl.load(a_ptr + rows[:, None].to(tl.int64) * stride_m + ks[None, :], mask=ks[None, :] < K,
                         other=0.0).to(tl.float32)
    tl.store(out_ptr + tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M), tl.sum(total, axis=1))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=6)
    args = parser.parse_args()
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))

    for block_m, block_k in ((64, 64), (64, 128), (128, 128)):
        variants, asked = {}, {}
        for width in (1000, 1008, 1024):
            a = torch.randn(M, width, device="cuda").half()
            out = torch.empty(M // block_m * REPEAT * block_m, device="cuda")
            grid = (M // block_m * REPEAT,)
            desc = TensorDescriptor.from_tensor(a, [block_m, block_k])
            variants[f"{width} TMA"] = lambda d=desc, o=out, w=width, g=grid, bm=block_m, bk=block_k: (
                read_by_descriptor[g](d, o, w, bm, bk, REPEAT, 4, num_warps=4))
            variants[f"{width} pointers"] = lambda a=a, o=out, w=width, g=grid, bm=block_m, bk=block_k: (
                read_by_pointer[g](a, o, w, a.stride(0), bm, bk, REPEAT, 4, num_warps=4))
            for name in (f"{width} TMA", f"{width} pointers"):
                asked[name] = REPEAT * M * width * 2
            reference = a.float().sum(dim=1)
            for name in (f"{width} TMA", f"{width} pointers"):
                variants[name]()
                got = out.view(-1, REPEAT, block_m)[:, 0, :].reshape(-1)
                assert torch.allclose(got, reference, rtol=1e-3, atol=1e-2), name
        cold = medians_in_turns(variants, args.rounds)  # tuning.measure_ms: cold L2
        warm = {}
        for name, launch in variants.items():
            result = time_events(launch, [()], warmup=2, samples=30, flush=None)
            warm[name] = statistics.median(result.samples_ms)
        print(f"box {block_m}x{block_k} (fp16), {M} rows, {REPEAT} programs per strip:", flush=True)
        for name in variants:
            print(f"  {name:14s} cold {cold[name] * 1e3:7.1f} us {asked[name] / cold[name] / 1e9:6.2f} TB/s   "
                  f"warm {warm[name] * 1e3:7.1f} us {asked[name] / warm[name] / 1e9:6.2f} TB/s", flush=True)


if __name__ == "__main__":
    main()
