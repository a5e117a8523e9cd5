"""Where split-K loses time on skinny problems, and whether A's misaligned rows at 1000^3 can be dodged (H200).

    PYTHONPATH=src:. python scripts/h200_skinny_probe.py [--rounds 5]

Split-K (M = 16 and 128, N = K = 4096). The library's last slice of each tile re-reads every partial plane,
its own included, before it writes C. Two probe-only variants of the same pointer kernel:
  own     the last slice keeps its own partial in registers and reads only the other planes;
  atomic  every slice adds its partial into one float32 tile with atomics; the last one reads that single
          tile, writes C and zeroes the tile for the next call (with 2 slices the sum is still exact and
          order-free: 0 + a + b == 0 + b + a).
Each tile size runs with both, next to torch and the library default, cold and warm L2. `read B` is the
floor: one pass over B's 32 MB (torch.sum) under the same timing.

1000^3: a variant that reads A through pointers (cp.async) and B through a host-built descriptor (TMA),
and one that first copies A into rows padded to 1024 elements, the copy inside the timed call.
"""

import argparse
import statistics

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

import tilelab
from scripts.turns import first_calls
from tilelab import tuning
from tilelab.bench import timing
from tilelab.kernels.matmul import grouped_tile, known_multiple

OWN, ATOMIC = 1, 2


@triton.jit
def probe_splitk_kernel(a_ptr, b_ptr, c_ptr, ws_ptr, counters_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                        SPLIT_K: tl.constexpr, REDUCE: tl.constexpr, EVICT: tl.constexpr = False):
    """Row-major A, B, C; K a multiple of BLOCK_K (the probe shapes).

    EVICT: A, which every column of tiles reads again, asks L2 to keep it; B, read once, to drop it first.
    """
    tile = tl.program_id(0)
    k_slice = tl.program_id(1)
    pid_m, pid_n = grouped_tile(tile, M, N, BLOCK_M, BLOCK_N, 8)
    steps = K // BLOCK_K
    per = tl.cdiv(steps, SPLIT_K)
    first = k_slice * per
    last = tl.minimum(first + per, steps)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    a_tile = a_ptr + rows[:, None] * stride_am + (first * BLOCK_K + ks)[None, :]
    b_tile = b_ptr + (first * BLOCK_K + ks)[:, None] * stride_bk + cols[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(first, last):
        if EVICT:
            a = tl.load(a_tile, mask=rows[:, None] < M, other=0.0, eviction_policy="evict_last")
            b = tl.load(b_tile, mask=cols[None, :] < N, other=0.0, eviction_policy="evict_first")
        else:
            a = tl.load(a_tile, mask=rows[:, None] < M, other=0.0)
            b = tl.load(b_tile, mask=cols[None, :] < N, other=0.0)
        acc = tl.dot(a, b, acc)
        a_tile += BLOCK_K
        b_tile += BLOCK_K * stride_bk
    inside = (rows[:, None] < M) & (cols[None, :] < N)
    offsets = rows[:, None] * N + cols[None, :]
    c_tile = c_ptr + rows[:, None] * stride_cm + cols[None, :]
    counter = counters_ptr + tile
    if REDUCE == 1:
        tl.store(ws_ptr + k_slice * M * N + offsets, acc, mask=inside)
        tl.debug_barrier()
        arrived = tl.atomic_add(counter, 1, sem="acq_rel", scope="gpu")
        if arrived == SPLIT_K - 1:
            total = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
            for s in tl.static_range(SPLIT_K):
                other = tl.load(ws_ptr + s * M * N + offsets, mask=inside & (k_slice != s), other=0.0,
                                cache_modifier=".cg")
                total += tl.where(k_slice == s, acc, other)
            tl.store(c_tile, total.to(c_ptr.dtype.element_ty), mask=inside)
            tl.atomic_xchg(counter, 0, sem="relaxed", scope="gpu")
    else:
        tl.atomic_add(ws_ptr + offsets, acc, mask=inside, sem="relaxed", scope="gpu")
        tl.debug_barrier()
        arrived = tl.atomic_add(counter, 1, sem="acq_rel", scope="gpu")
        if arrived == SPLIT_K - 1:
            total = tl.load(ws_ptr + offsets, mask=inside, other=0.0, cache_modifier=".cg")
            tl.store(c_tile, total.to(c_ptr.dtype.element_ty), mask=inside)
            tl.store(ws_ptr + offsets, tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32), mask=inside)
            tl.atomic_xchg(counter, 0, sem="relaxed", scope="gpu")


@triton.jit
def probe_mixed_kernel(a_ptr, b_desc, c_desc, M, N, K, stride_am,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """A through pointers (rows 16-byte aligned, said so), B and C through descriptors."""
    stride_am = known_multiple(stride_am, 8)
    K = known_multiple(K, 8)
    pid_m, pid_n = grouped_tile(tl.program_id(0), M, N, BLOCK_M, BLOCK_N, 8)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    ks = tl.arange(0, BLOCK_K)
    a_tile = a_ptr + rows[:, None] * stride_am + ks[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_ok = (k * BLOCK_K + ks) < K
        a = tl.load(a_tile, mask=(rows[:, None] < M) & k_ok[None, :], other=0.0)
        b = b_desc.load([k * BLOCK_K, pid_n * BLOCK_N])
        acc = tl.dot(a, b, acc)
        a_tile += BLOCK_K
    c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(c_desc.dtype))


def splitk_variant(a, b, bm, bn, bk, s, warps, stages, reduce, evict=False):
    m, k = a.shape
    n = b.shape[1]
    c = torch.empty(m, n, device=a.device, dtype=a.dtype)
    planes = s if reduce == OWN else 1
    ws = torch.zeros(planes, m, n, device=a.device, dtype=torch.float32)
    tiles = triton.cdiv(m, bm) * triton.cdiv(n, bn)
    counters = torch.zeros(tiles, device=a.device, dtype=torch.int32)

    def launch():  # Triton's Python launch path: the timing's GPU head start hides it
        probe_splitk_kernel[(tiles, s)](a, b, c, ws, counters, m, n, k, a.stride(0), b.stride(0), c.stride(0),
                                        bm, bn, bk, s, reduce, evict, num_warps=warps, num_stages=stages)
        return c
    return launch


def mixed_variant(a, b, bm, bn, bk, warps, stages):
    m, k = a.shape
    n = b.shape[1]
    c = torch.empty(m, n, device=a.device, dtype=a.dtype)
    b_desc = TensorDescriptor(b, list(b.shape), list(b.stride()), [bk, bn])
    c_desc = TensorDescriptor(c, list(c.shape), list(c.stride()), [bm, bn])
    grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn),)

    def launch():
        probe_mixed_kernel[grid](a, b_desc, c_desc, m, n, k, a.stride(0), bm, bn, bk,
                                 num_warps=warps, num_stages=stages)
        return c
    return launch


def padded_copy_variant(a, b):
    m, k = a.shape
    storage = torch.empty(m, triton.cdiv(k, 64) * 64, device=a.device, dtype=a.dtype)
    padded = storage[:, :k]

    def launch():
        padded.copy_(a)
        return tilelab.matmul(padded, b)
    return launch


def warm_ms(launch, samples=30):
    return statistics.median(timing.time_events(launch, [()], warmup=3, samples=samples, flush=None,
                                                head_start_ms_per_sample=0.5).samples_ms)


def run(title, a, b, variants, rounds):
    ref = a.double() @ b.double()
    outputs = first_calls(variants)
    errors = {}
    for name, out in outputs.items():
        errors[name] = float("nan") if name == "read B" else ((out.double() - ref).norm() / ref.norm()).item()
    cold = {name: [] for name in variants}
    warm = {name: [] for name in variants}
    for turn in range(rounds):
        for name in timing.in_turn(list(variants), turn):
            cold[name].append(tuning.measure_ms(variants[name], 10))
            warm[name].append(warm_ms(variants[name], 10))
    torch_cold = statistics.median(cold["torch"])
    torch_warm = statistics.median(warm["torch"])
    print(f"== {title}: torch cold {torch_cold * 1e3:.1f} us, warm {torch_warm * 1e3:.1f} us", flush=True)
    for name in variants:
        c, w = statistics.median(cold[name]), statistics.median(warm[name])
        print(f"  {name:44s} cold {c * 1e3:6.1f} us ({torch_cold / c:.3f}x)  warm {w * 1e3:6.1f} us "
              f"({torch_warm / w:.3f}x)  err {errors[name]:.1e}", flush=True)


SPLITS = {  # M: (BLOCK_M, BLOCK_N, BLOCK_K, slices, warps, stages)
    128: [(128, 64, 128, 2, 4, 4), (128, 128, 128, 4, 8, 3), (128, 128, 64, 4, 8, 4), (128, 128, 64, 2, 8, 4),
          (128, 256, 64, 8, 8, 3), (64, 128, 128, 2, 4, 4), (64, 64, 128, 1, 4, 4)],
    16: [(16, 64, 128, 2, 4, 4), (16, 64, 128, 4, 4, 4), (16, 128, 128, 4, 4, 4), (16, 256, 128, 8, 4, 3),
         (16, 128, 128, 2, 4, 4)],
}


def skinny_problem(m: int, dtype: torch.dtype):
    """A [m, 4096] and B [4096, 4096] on the GPU, and the two variants every skinny probe times first."""
    a = torch.randn(m, 4096, device="cuda").to(dtype)
    b = torch.randn(4096, 4096, device="cuda").to(dtype)
    return a, b, {"torch": lambda: torch.mm(a, b), "library default": lambda: tilelab.matmul(a, b)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    for dtype in (torch.float16, torch.bfloat16):
        for m, tiles in SPLITS.items():
            a, b, variants = skinny_problem(m, dtype)
            variants["read B"] = lambda b=b: b.sum(dtype=torch.float32)
            for bm, bn, bk, s, warps, stages in tiles:
                for reduce, label in ((OWN, "own"), (ATOMIC, "atomic")):
                    if s == 1 and reduce == ATOMIC:
                        continue
                    variants[f"{label:6s} {bm}x{bn}x{bk}-sk{s}-w{warps}-s{stages}"] = splitk_variant(
                        a, b, bm, bn, bk, s, warps, stages, reduce)
            run(f"{m}x4096x4096 {dtype}", a, b, variants, args.rounds)
        a = torch.randn(1000, 1000, device="cuda").to(dtype)
        b = torch.randn(1000, 1000, device="cuda").to(dtype)
        variants = {"torch": lambda a=a, b=b: torch.mm(a, b),
                    "library default": lambda a=a, b=b: tilelab.matmul(a, b),
                    "pad A, then library": padded_copy_variant(a, b)}
        for bm, bn, bk, warps, stages in ((128, 64, 128, 4, 4), (64, 128, 128, 4, 4), (128, 64, 64, 4, 4),
                                          (128, 128, 64, 8, 4)):
            variants[f"mixed {bm}x{bn}x{bk}-w{warps}-s{stages}"] = mixed_variant(a, b, bm, bn, bk, warps, stages)
        run(f"1000^3 {dtype}", a, b, variants, args.rounds)


if __name__ == "__main__":
    main()
