"""tf32 without a copy of B, written in Gluon (run on the H200).

    PYTHONPATH=src:. python scripts/h200_tf32_gluon_probe.py [--rounds 6]

`scripts/tf32_gluon_kernel.py` computes C^T = B^T A^T with B^T's tiles in registers, like
`h200_tf32_register_probe.py`, but one warp issues the TMA loads (warp specialization) and each step's
register load overlaps the previous step's wgmma. Each configuration takes turns with torch.mm (TF32
allowed), the library's default (copy of B + persistent kernel) and the library on a B that is already
K-major (the kernel alone); times are tuning.measure_ms (events, cold L2).
"""

import argparse

import torch

import tilelab
from scripts.h200_tf32_register_probe import tf32_probe
from scripts.tf32_gluon_kernel import launch as gluon_launch
from scripts.tf32_gluon_kernel import launch_persistent
from tilelab.reference import relative_error

# kind, block_m, block_n, block_k, stages, GROUP_M (acc is C^T's [block_n, block_m] tile; 8 warps = 2 warp
# groups). Call XX: tile-per-program 256x128x32 s4 0.973x at 4096^3, s3 0.917x, 128-wide tiles 0.77x.
CONFIGS = [("tile", 256, 128, 32, 4, 8), ("tile", 256, 128, 32, 4, 16), ("tile", 256, 128, 16, 8, 8),
           ("persistent", 256, 128, 32, 4, 8), ("persistent", 256, 128, 32, 3, 8),
           ("persistent", 256, 128, 16, 7, 8), ("persistent", 256, 128, 32, 4, 16)]


def label(kind, bm, bn, bk, stages, group_m) -> str:
    return f"gluon {kind} {bm}x{bn}x{bk} s{stages} g{group_m}"


def variant(a, b, kind, bm, bn, bk, stages, group_m):
    c = torch.empty(a.shape[0], b.shape[1], device=a.device, dtype=torch.float32)

    def run():
        if kind == "tile":
            gluon_launch(a, b, c, block_m=bm, block_n=bn, block_k=bk, stages=stages, group_m=group_m, subtile=False)
        else:
            launch_persistent(a, b, c, block_m=bm, block_n=bn, block_k=bk, stages=stages, group_m=group_m)
        return c
    return run


def check(shapes) -> None:
    """Relative error against float64 on ragged shapes (odd step counts too), outputs poisoned first."""
    for m, n, k in shapes:
        a = torch.randn(m, k, device="cuda")
        b = torch.randn(k, n, device="cuda")
        ref = a.double() @ b.double()
        print(f"check {m}x{n}x{k}: library err {relative_error(tilelab.matmul(a, b), ref):.2e}, "
              f"torch {relative_error(torch.mm(a, b), ref):.2e}", flush=True)
        for config in CONFIGS:
            run = variant(a, b, *config)
            try:
                out = run()
                out.fill_(float("nan"))
                out = run()
                torch.cuda.synchronize()
                print(f"  {label(*config)}: err {relative_error(out, ref):.2e}", flush=True)
            except Exception as error:  # noqa: BLE001 - a probe reports every failure
                print(f"  {label(*config)}: failed {type(error).__name__}: {str(error)[:300]}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=6)
    args = parser.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = True
    check([(1000, 1000, 1000), (257, 520, 36), (300, 260, 80), (64, 8, 4), (2100, 1500, 700)])
    for size in (4096, 8192):
        tf32_probe(size, args.rounds, lambda a, b: {label(*c): variant(a, b, *c) for c in CONFIGS})


if __name__ == "__main__":
    main()
