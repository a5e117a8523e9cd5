"""Why one fp8 tile takes twice torch's GPU time: every fp8 candidate, and the fp16 paths, on tiny problems
(run on the H200).

    PYTHONPATH=src:. python scripts/h200_tiny_tiles_probe.py

Call JJ's overhead run (results/h200-overhead-session6.log) put `scaled_matmul` at 128x256x64 at 5.15 us per
call in a CUDA graph against torch._scaled_mm's 2.49 (fast accumulation, bf16 out). Graph replays take the
host out: what is left is the kernel and the gap between kernels. Each variant runs alone, 200 calls per graph.
"""

import torch

import tilelab
from scripts.h200_overhead import graph_us
from tilelab.ops.matmul_hopper import FP8_CANDIDATES, PERSISTENT_CANDIDATES
from tilelab.ops.scaled_matmul import candidates, scaled_matmul


def show(variants: dict) -> None:
    for name, fn in variants.items():
        try:
            print(f"  {name:32s} graph {graph_us(fn):6.2f} us/call", flush=True)
        except Exception as error:  # a tile that does not fit is a result too
            print(f"  {name:32s} failed: {type(error).__name__}: {str(error)[:120]}", flush=True)


def probe(m: int, n: int, k: int) -> None:
    one = torch.ones((), device="cuda")
    a8 = torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn)
    b8 = torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn).t()
    default = candidates(m, n, torch.bfloat16, fast_accum=True)[0]
    print(f"== {m}x{n}x{k} fp8, fast accumulation (untuned default {default.label()})", flush=True)
    fp8 = {"torch._scaled_mm": lambda: torch._scaled_mm(a8, b8, one, one, out_dtype=torch.bfloat16,
                                                        use_fast_accum=True)}
    for c in FP8_CANDIDATES:
        fp8[c.label()] = lambda c=c: scaled_matmul(a8, b8, one, one, use_fast_accum=True, config=c)
    show(fp8)
    a = torch.randn(m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(k, n, device="cuda", dtype=torch.float16)
    print(f"-- {m}x{n}x{k} fp16", flush=True)
    fp16 = {"torch.mm": lambda: torch.mm(a, b), "tilelab (default)": lambda: tilelab.matmul(a, b),
            "descriptor": lambda: tilelab.matmul(a, b, path="descriptor")}
    for c in (PERSISTENT_CANDIDATES[0], PERSISTENT_CANDIDATES[-1], PERSISTENT_CANDIDATES[10]):
        fp16[f"persistent {c.label()}"] = lambda c=c: tilelab.matmul(a, b, path="persistent", config=c)
    show(fp16)


def main() -> None:
    for shape in [(128, 256, 64), (128, 256, 128), (256, 512, 512)]:
        probe(*shape)


if __name__ == "__main__":
    main()
