"""Stream-K at the shapes whose tiles fill the SMs badly: 1536^3, 1536x1536x4096, 768x4096x4096 ... (run on the H200)

    PYTHONPATH=src:. python scripts/h200_stream_k_probe.py [--rounds 10]

1536^3 made 72 tiles of 128x256 for 132 SMs and ran at 0.72x torch on its bucket's tile, 0.78x tuned there
(results/h200-bucket-probe.log). `matmul_stream_k_kernel` shares the tiles' K steps out evenly instead. Each
candidate of `STREAM_K_CANDIDATES` is timed in turns with torch and tilelab's default (its recorded launch);
the stream-K launches reuse their descriptors and workspace, so they pay only Triton's launch path, which the
timing's head start keeps off the GPU's clock.
"""

import argparse
import functools

import torch

import tilelab
from scripts.turns import report_in_turns
from tilelab.kernels.matmul_stream_k import matmul_stream_k_kernel
from tilelab.ops import matmul as matmul_op
from tilelab.ops import matmul_hopper as hopper
from tilelab.reference import matmul_reference

SHAPES = [(1536, 1536, 1536), (1536, 1536, 4096), (768, 4096, 4096), (3072, 3072, 3072), (768, 768, 768),
          (2048, 2048, 2048), (4096, 4096, 4096), (1024, 1024, 1024)]


def default_call(a, b):
    matmul_op._REPLAYS.clear()
    tilelab.matmul(a, b)
    plan = matmul_op.describe_plan(a, b)
    (replay,) = matmul_op._REPLAYS.values()
    config = plan["config"] or {}
    print(f"  default: {plan['path']} {config.get('block_m')}x{config.get('block_n')}x{config.get('block_k')}",
          flush=True)
    return lambda: replay(a, b)


def stream_k_call(a, b, config):
    """The stream-K launch with its arguments built once; returns C."""
    m, k = a.shape
    n = b.shape[1]
    c = torch.empty(m, n, dtype=a.dtype, device=a.device)
    a3, b3, c3 = a[None], b[None], c[None]
    _, _, grid, args = hopper.launch_stream_k(a3, b3, c3, m, n, k, matmul_op.operand_layout(a3),
                                              matmul_op.operand_layout(b3), "tf32", config,
                                              hopper.device_sms(a.device))
    launch = matmul_stream_k_kernel[grid]

    def run():
        launch(*args, num_warps=config.num_warps, num_stages=config.num_stages)
        return c
    return run


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    for m, n, k in SHAPES:
        a = torch.randn(m, k, device="cuda", dtype=torch.float16)
        b = torch.randn(k, n, device="cuda", dtype=torch.float16)
        variants = {"torch": functools.partial(torch.mm, a, b), "default": default_call(a, b)}
        for config in hopper.STREAM_K_CANDIDATES:
            programs = hopper.stream_k_programs(m, n, k, config, hopper.device_sms(a.device))
            variants[f"stream-K {config.label()} ({programs} programs)"] = stream_k_call(a, b, config)
        report_in_turns(f"{m}x{n}x{k} float16", variants, args.rounds, reference=matmul_reference(a, b),
                        by_time=True)


if __name__ == "__main__":
    main()
