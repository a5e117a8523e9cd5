"""Why is float32 (tf32) matmul slow? One GPU call of measurements against torch.

    PYTHONPATH=src python scripts/h200_tf32_probe.py > tf32-probe.log

Hypothesis: Hopper's tf32 wgmma reads both operands K-major from shared
memory (only 16-bit types may be transposed). B stored [K, N] (row-major,
N contiguous) is MN-major, so Triton must transpose each B tile through
registers; B stored [N, K] (a transposed view of a contiguous tensor) is
K-major and needs nothing. This script times every path and a few tile
shapes with B stored both ways, next to torch with TF32 allowed, and the
cost of making B K-major with a copy. It also times tf32x3 and ieee (issue 5
wants tf32x3 faster than ieee at ieee-like error).
"""

import sys

import torch
import triton

from tilelab import matmul
from tilelab.ops.matmul_hopper import HopperConfig
from tilelab.reference import matmul_reference, relative_error
from tilelab.tuning import Config

M = N = K = 4096
FLOP = 2 * M * N * K


def bench(fn) -> float:
    return triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")


def tflops(ms: float) -> float:
    return FLOP / ms / 1e9


def main() -> None:
    torch.manual_seed(0)
    a = torch.randn(M, K, device="cuda")
    b_rows = torch.randn(K, N, device="cuda")  # [K, N]: MN-major for the B operand
    b_kmajor = b_rows.t().contiguous().t()  # same values stored [N, K]: K-major
    ref = matmul_reference(a[:512], b_rows)

    torch.backends.cuda.matmul.allow_tf32 = True
    t_torch = bench(lambda: a @ b_rows)
    t_torch_k = bench(lambda: a @ b_kmajor)
    print(f"torch tf32  B[K,N] {t_torch:.4f} ms {tflops(t_torch):6.1f} TFLOP/s | "
          f"B K-major {t_torch_k:.4f} ms {tflops(t_torch_k):6.1f}", flush=True)
    t_copy = bench(lambda: b_rows.t().contiguous())
    print(f"transpose copy of B (4096^2 fp32): {t_copy:.4f} ms = {t_copy / t_torch:.1%} of torch's matmul",
          flush=True)

    configs = [
        Config(128, 128, 32, 8, num_warps=8, num_stages=4),
        Config(128, 128, 32, 8, num_warps=4, num_stages=4),
        Config(128, 256, 32, 8, num_warps=8, num_stages=3),
        Config(128, 64, 32, 8, num_warps=4, num_stages=4),
        Config(64, 128, 32, 8, num_warps=4, num_stages=4),
        Config(128, 128, 64, 8, num_warps=8, num_stages=3),
        Config(64, 64, 32, 8, num_warps=4, num_stages=4),
    ]
    for path in ("pointer", "descriptor", "persistent"):
        for cfg in configs:
            if path == "persistent":
                cfg = HopperConfig(**cfg.as_dict(), epilogue_subtile=False)
            for name, b in (("B[K,N]", b_rows), ("B K-major", b_kmajor)):
                try:
                    out = matmul(a, b, path=path, config=cfg)
                    err = relative_error(out[:512], ref)
                    t = bench(lambda b=b, cfg=cfg, path=path: matmul(a, b, path=path, config=cfg))
                    print(f"{path:10} {cfg.label():24} {name:9} {t:.4f} ms {tflops(t):6.1f} TFLOP/s "
                          f"({t_torch / t:.2f}x torch) err {err:.1e}", flush=True)
                except Exception as exc:  # noqa: BLE001  a probe reports and moves on
                    print(f"{path:10} {cfg.label():24} {name:9} FAILED {type(exc).__name__}: "
                          f"{str(exc).splitlines()[0][:150]}", flush=True)

    torch.backends.cuda.matmul.allow_tf32 = False
    t_ieee_torch = bench(lambda: a @ b_rows)
    print(f"torch ieee {t_ieee_torch:.4f} ms {tflops(t_ieee_torch):6.1f} TFLOP/s "
          f"err {relative_error((a[:512] @ b_rows), ref):.1e}", flush=True)
    for precision in ("tf32x3", "ieee"):
        for name, b in (("B[K,N]", b_rows), ("B K-major", b_kmajor)):
            out = matmul(a, b, precision=precision)
            err = relative_error(out[:512], ref)
            t = bench(lambda b=b, precision=precision: matmul(a, b, precision=precision))
            print(f"tilelab {precision:6} {name:9} {t:.4f} ms {tflops(t):6.1f} TFLOP/s "
                  f"({t_ieee_torch / t:.2f}x torch ieee) err {err:.1e}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
