"""Rows kept as a head and a tail against one power-of-two block (run on the H200).

    PYTHONPATH=src:. python scripts/h200_row_tail_probe.py [--rounds 5]

`plan_rows` keeps a row of 5000 as 4096 + 1024 lanes (`head_and_tail`) where one block of 8192 masked 39% of
them. Each shape below runs through tilelab.softmax / tilelab.rmsnorm (with a weight) twice: with the library's
plan, and with the head switched off (`MIN_HEAD` past every row: one power-of-two block, the same warps), next
to torch; timed as kernel-bench times (CUDA events, the L2 flushed before each call), in turns, median.

Ran once, at commit 7214aca (call JJJJJJJ, results/h200-row-tail-probe.log): the head and tail were slower on
most shapes (softmax fp16 at 4096x5000 32.1 against 27.8 us) and were removed in the next commit, with
`MIN_HEAD` and `head_and_tail`; run it from 7214aca.
"""

import argparse
import statistics

import torch

import tilelab
from tilelab.bench import timing
from tilelab.ops import rows as rows_op

SHAPES = [(4096, 5000), (8192, 5120), (4096, 3000), (4096, 6144), (16384, 1500), (65536, 300), (4096, 2500)]


def one_block(fn):
    """fn with `head_and_tail` off: a fresh plan (no replay) of one power-of-two block."""
    def call():
        saved = rows_op.MIN_HEAD
        rows_op.MIN_HEAD = rows_op.MAX_BLOCK + 1
        try:
            rows_op._REPLAYS.clear()
            return fn()
        finally:
            rows_op.MIN_HEAD = saved
            rows_op._REPLAYS.clear()
    return call


def library(fn):
    def call():
        rows_op._REPLAYS.clear()  # both variants plan and launch every call: the same host work
        return fn()
    return call


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--samples", type=int, default=20)
    args = parser.parse_args()
    device = torch.device("cuda")
    flush = timing.L2Flusher(device, torch.cuda.get_device_properties(0).L2_cache_size)
    for dtype in (torch.float16, torch.float32):
        for shape in SHAPES:
            x = (torch.randn(shape, device=device) * 4).to(dtype)
            w = torch.randn(shape[1], device=device).to(dtype)
            plan = rows_op.plan_rows(*shape, x.element_size(), (shape[1], shape[1]))
            ops = {
                "softmax": (lambda x=x: torch.softmax(x, -1), lambda x=x: tilelab.softmax(x, -1)),
                "rmsnorm": (lambda x=x, w=w: torch.nn.functional.rms_norm(x, (x.shape[1],), w, 1e-6),
                            lambda x=x, w=w: tilelab.rmsnorm(x, w, 1e-6)),
            }
            for op, (torch_fn, ours) in ops.items():
                variants = {"torch": torch_fn, "head + tail": library(ours), "one block": one_block(ours)}
                want = torch_fn().double()
                errors = {name: (fn().double() - want).abs().max().item() for name, fn in variants.items()}
                times = {name: [] for name in variants}
                for turn in range(args.rounds):
                    for name in timing.in_turn(list(variants), turn):
                        result = timing.time_events(variants[name], [()], warmup=2, samples=args.samples,
                                                    flush=flush, head_start_ms_per_sample=0.5)
                        times[name].append(statistics.median(result.samples_ms) * 1000)
                torch_us = statistics.median(times["torch"])
                print(f"== {op} {shape[0]}x{shape[1]} {str(dtype)[6:]}: {plan}", flush=True)
                for name in variants:
                    us = statistics.median(times[name])
                    print(f"  {name:12s} {us:7.1f} us  {torch_us / us:5.2f}x torch  max|err| {errors[name]:.1e}",
                          flush=True)


if __name__ == "__main__":
    main()
