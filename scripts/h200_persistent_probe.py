"""Persistent-kernel tiles the candidate list lacks, against its measured default (run on the H200).

    PYTHONPATH=src:. python scripts/h200_persistent_probe.py

Times each configuration with tuning.measure_ms (events, cold L2) next to torch.mm, fp16, on the large squares.
"""

import torch

from tilelab import tuning
from tilelab.ops import matmul as matmul_op
from tilelab.ops.matmul_hopper import PERSISTENT_CANDIDATES, HopperConfig

PROBES = {
    "default 128x256x64 s3": PERSISTENT_CANDIDATES[0],
    "128x256x128 s2 (fewer, larger K steps)": HopperConfig(128, 256, 128, 8, num_warps=8, num_stages=2),
    "256x128x64 s4": HopperConfig(256, 128, 64, 8, num_warps=8, num_stages=4),
    "128x256x64 s3 group 4": HopperConfig(128, 256, 64, 4, num_warps=8, num_stages=3),
}


def probe(size: int) -> None:
    a = torch.randn(size, size, device="cuda", dtype=torch.float16)
    b = torch.randn(size, size, device="cuda", dtype=torch.float16)
    flops = 2 * size**3
    ref_ms = tuning.measure_ms(lambda: torch.mm(a, b))
    print(f"{size}^3 torch.mm {flops / ref_ms / 1e9:6.1f} TFLOP/s", flush=True)
    for name, config in PROBES.items():
        try:
            ms = tuning.measure_ms(lambda c=config: matmul_op.matmul(a, b, path="persistent", config=c))
        except Exception as error:  # a config that does not compile or fit is a result too
            print(f"  {name:40s} failed: {type(error).__name__}: {str(error)[:200]}", flush=True)
            continue
        print(f"  {name:40s} {flops / ms / 1e9:6.1f} TFLOP/s ({ref_ms / ms:.2f}x torch)", flush=True)


def main() -> None:
    for size in (4096, 8192):
        probe(size)

if __name__ == "__main__":
    main()
