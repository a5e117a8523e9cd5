"""Where tilelab.linear's epilogue costs time on the pingpong kernel (run on the H200).

    PYTHONPATH=src:. python scripts/h200_linear_epilogue_probe.py

Call BBBBBBB measured linear (bias + GELU) at 0.70x torch's F.gelu(F.linear(...)) at 8192x8192x1024 and 0.94x
at 4096x11008x4096, both on the pingpong kernel, where the plain matmul runs at 1.07x and 1.05x torch.mm.
Here each piece apart, fp16, weight stored [N, K] as nn.Linear keeps it: the plain matmul on the pingpong and
persistent kernels, linear with a bias alone, with each activation alone, with both, on each kernel; torch's
F.linear alone and with F.gelu. triton.testing.do_bench (L2 flushed before each call), median.
"""

import torch
import triton

import tilelab

SHAPES = [(8192, 8192, 1024), (4096, 11008, 4096)]


def timed(fn) -> float:
    return triton.testing.do_bench(fn, warmup=25, rep=200, return_mode="median") * 1000.0


def variants(x, w, b) -> dict:
    f = torch.nn.functional
    found = {
        "torch F.linear(x, w, b)": lambda: f.linear(x, w, b),
        "torch F.gelu(F.linear(x, w, b))": lambda: f.gelu(f.linear(x, w, b)),
        "torch.mm(x, w.T)": lambda: torch.mm(x, w.mT),
    }
    for path in ("pingpong", "persistent"):
        found[f"{path}: matmul"] = lambda path=path: tilelab.matmul(x, w.mT, path=path)
        found[f"{path}: bias"] = lambda path=path: tilelab.linear(x, w, b, path=path)
        for act in ("relu", "silu", "gelu"):
            found[f"{path}: {act}"] = lambda path=path, act=act: tilelab.linear(x, w, None, activation=act, path=path)
        found[f"{path}: bias + gelu"] = lambda path=path: tilelab.linear(x, w, b, activation="gelu", path=path)
    return found


def main() -> None:
    for m, n, k in SHAPES:
        x = torch.randn(m, k, device="cuda", dtype=torch.float16)
        w = (torch.randn(n, k, device="cuda") / k**0.5).half()
        b = torch.randn(n, device="cuda", dtype=torch.float16)
        flops = 2 * m * n * k
        print(f"== {m}x{n}x{k} fp16", flush=True)
        for name, fn in variants(x, w, b).items():
            try:
                us = timed(fn)
            except Exception as e:  # a variant that fails is a result too
                print(f"  {name:34s} failed: {type(e).__name__}: {str(e)[:100]}", flush=True)
                continue
            print(f"  {name:34s} {us:8.1f} us  {flops / us / 1e6:6.1f} TFLOP/s", flush=True)


if __name__ == "__main__":
    main()
