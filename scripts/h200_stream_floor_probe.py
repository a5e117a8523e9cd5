"""How fast can anything read 32 MB under kernel-bench's timing? The floor for the skinny default shapes (H200).

    PYTHONPATH=src:. python scripts/h200_stream_floor_probe.py [--rounds 5]

16x4096x4096 and 128x4096x4096 read B's 32 MiB once; kernel-bench times them with CUDA events after an L2
flush (`L2Flusher`: zero a buffer twice the L2's size, which leaves the L2 full of dirty lines that must be
written back before new ones fit). The split-K kernel there moves 2.0-2.7 TB/s. This probe times, in turns:
  - an empty kernel (the fixed cost of one launch between two events);
  - a streaming read of the same 32 MiB (each program sums a contiguous run, 16-byte loads), several grids;
  - torch.sum and a torch copy of the same bytes;
  - torch.mm and tilelab.matmul at 16 and 128 rows;
under three caches: cold (kernel-bench's flush), clean (the flush, then a read of another 2x-L2 buffer, so
the L2 holds clean lines) and warm (no flush, B resident in the 60 MB L2).
"""

import argparse
import statistics

import torch
import triton
import triton.language as tl

import tilelab
from tilelab.bench import timing
from tilelab.ops.matmul import describe_plan


@triton.jit
def empty_kernel(x_ptr):
    pass


@triton.jit
def stream_sum_kernel(x_ptr, out_ptr, n_elements, PER_PROGRAM: tl.constexpr, BLOCK: tl.constexpr):
    """Program i sums x[i*PER_PROGRAM : (i+1)*PER_PROGRAM] (n_elements a multiple of PER_PROGRAM)."""
    start = tl.program_id(0).to(tl.int64) * PER_PROGRAM
    acc = tl.zeros([BLOCK], tl.float32)
    for offset in tl.range(0, PER_PROGRAM, BLOCK):
        acc += tl.load(x_ptr + start + offset + tl.arange(0, BLOCK)).to(tl.float32)
    tl.store(out_ptr + tl.program_id(0), tl.sum(acc))


def stream_variant(x, programs, block, warps):
    flat = x.view(-1)
    per_program = flat.numel() // programs
    assert per_program * programs == flat.numel() and per_program % block == 0
    out = torch.empty(programs, device=x.device, dtype=torch.float32)

    def launch():
        stream_sum_kernel[(programs,)](flat, out, flat.numel(), per_program, block, num_warps=warps)
        return out
    return launch


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--samples", type=int, default=20)
    args = parser.parse_args()
    torch.manual_seed(0)
    device = torch.device("cuda")
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    b = torch.randn(4096, 4096, device=device).half()
    copy_target = torch.empty_like(b)
    a16 = torch.randn(16, 4096, device=device).half()
    a128 = torch.randn(128, 4096, device=device).half()
    variants = {
        "empty kernel, 1 program": lambda: empty_kernel[(1,)](b),
        "empty kernel, 132 programs": lambda: empty_kernel[(132,)](b),
        "torch.sum(B)": lambda: b.sum(dtype=torch.float32),
        "torch copy B (32 MiB read + write)": lambda: copy_target.copy_(b),
        "torch.mm 16x4096x4096": lambda: torch.mm(a16, b),
        "tilelab 16x4096x4096": lambda: tilelab.matmul(a16, b),
        "torch.mm 128x4096x4096": lambda: torch.mm(a128, b),
        "tilelab 128x4096x4096": lambda: tilelab.matmul(a128, b),
    }
    for programs in (128, 256, 512, 1024, 2048):
        for block, warps in ((4096, 4), (8192, 8)):
            variants[f"stream B: {programs} programs, {block}-lane blocks, {warps} warps"] = stream_variant(
                b, programs, block, warps)
    expected = b.double().sum().item()
    for name, fn in variants.items():
        out = fn()
        if name.startswith("stream"):
            got = out.double().sum().item()
            assert abs(got - expected) < 1e-3 * b.numel() ** 0.5, (name, got, expected)
    for name, a in (("16", a16), ("128", a128)):
        reference = a.double() @ b.double()
        error = ((tilelab.matmul(a, b).double() - reference).norm() / reference.norm()).item()
        print(f"tilelab {name}x4096x4096 relative error {error:.1e}", flush=True)
    torch.cuda.synchronize()
    print(f"plan 16 rows: {describe_plan(a16, b)}", flush=True)
    print(f"plan 128 rows: {describe_plan(a128, b)}", flush=True)

    flusher = timing.L2Flusher(device, l2)
    clean = torch.empty(2 * l2, dtype=torch.int8, device=device)

    def flush_then_read():
        flusher()
        clean.sum(dtype=torch.int32)  # the L2 now holds clean lines of `clean`

    caches = (("cold (kernel-bench)", flusher), ("clean", flush_then_read), ("warm", None))
    for cache, flush in caches:
        samples = {name: [] for name in variants}
        for turn in range(args.rounds):
            for name in timing.in_turn(list(variants), turn):
                result = timing.time_events(variants[name], [()], warmup=3, samples=args.samples, flush=flush,
                                            head_start_ms_per_sample=0.3)
                samples[name].append(statistics.median(result.samples_ms) * 1000)
        print(f"== {cache} L2: median of {args.rounds} rounds of {args.samples} calls, events (us; TB/s for "
              f"32 MiB read)", flush=True)
        for name, values in samples.items():
            us = statistics.median(values)
            print(f"  {name:52s} {us:7.2f} us  {b.numel() * 2 / us / 1e6:5.2f} TB/s", flush=True)


if __name__ == "__main__":
    main()
