"""tf32 on the registers path: B rounded to nearest in registers, or truncated by wgmma (run on the H200).

    PYTHONPATH=src:. python scripts/h200_tf32_rounding_probe.py [--rounds 10]

wgmma reads a float32 operand as tf32 by dropping its low 13 mantissa bits. The registers kernel holds B's
tiles in registers on their way to wgmma, where one `cvt.rna.tf32.f32` per value rounds them instead
(`RegistersConfig.round_b`); A, read from shared memory, stays truncated. This probe times both against
torch.mm with TF32 allowed, in turns, cold L2, and prints each one's relative error against float64.
"""

import argparse

import torch

from scripts.turns import report_in_turns
from tilelab.ops import matmul_registers as registers
from tilelab.ops.matmul_hopper import device_sms

SHAPES = [(2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192), (4096, 11008, 4096)]


def variant(a, b, config):
    c = torch.empty(a.shape[0], b.shape[1], device=a.device, dtype=torch.float32)
    sms = device_sms(a.device)

    def run():
        registers.launch(a, b, c, config, sms)
        return c
    return run


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = True
    for m, n, k in SHAPES:
        a = torch.randn(m, k, device="cuda")
        b = torch.randn(k, n, device="cuda")
        reference = a.double() @ b.double()
        variants = {
            "torch": lambda a=a, b=b: torch.mm(a, b),
            "truncated B": variant(a, b, registers.RegistersConfig(round_b=False)),
            "rounded B": variant(a, b, registers.RegistersConfig(round_b=True)),
        }
        report_in_turns(f"== {m}x{n}x{k} tf32", variants, args.rounds, reference=reference)


if __name__ == "__main__":
    main()
