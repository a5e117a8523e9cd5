"""The persistent kernel with and without STREAM_K on the large default shapes (run on the H200).

    PYTHONPATH=src:. python scripts/h200_stream_k_probe.py [--rounds 5]

Whole tiles leave the last wave part-empty (512 tiles on 132 SMs: 3.88 waves, so 4 tile-times). STREAM_K
shares the last two waves' worth of tiles out by K steps, for about 3.88 tile-times plus the cost of the cut
tiles. Each shape's tuned configuration, with and without it, against torch.mm; variants take turns
(tuning.measure_ms: events, cold L2). Also prints the register count and spills of each compiled kernel.
"""

import argparse
import dataclasses

import torch

import tilelab
from scripts.turns import first_calls, medians_in_turns
from tilelab.ops import matmul as matmul_op
from tilelab.ops import matmul_hopper
from tilelab.ops.matmul_hopper import HopperConfig

SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192), (4096, 11008, 4096), (4096, 4096, 11008), (8192, 8192, 1024)]


def registers(a, b, config) -> str:
    """Registers and spills of the compiled persistent kernel for this config."""
    m, k = a.shape
    n = b.shape[1]
    c = torch.empty(m, n, device=a.device, dtype=a.dtype)
    a3, b3, c3 = a[None], b[None], c[None]
    compiled, _, _ = matmul_hopper.launch_persistent(a3, b3, c3, m, n, k, matmul_op.operand_layout(a3),
                                                     matmul_op.operand_layout(b3), "tf32", config,
                                                     matmul_hopper.device_sms(a.device))
    return f"{compiled.n_regs} registers, {compiled.n_spills} spills"


def probe(shape, dtype, rounds: int) -> None:
    m, n, k = shape
    a = torch.randn(m, k, device="cuda").to(dtype)
    b = torch.randn(k, n, device="cuda").to(dtype)
    tuned = HopperConfig.from_dict(matmul_op.describe_plan(a, b)["config"])
    configs = {"tuned": tuned, "tuned + stream-K": dataclasses.replace(tuned, stream_k=True)}
    if tuned.flatten:
        configs["tuned, not flattened, + stream-K"] = dataclasses.replace(tuned, flatten=False, stream_k=True)
    variants = {"torch": lambda: torch.mm(a, b), "library default": lambda: tilelab.matmul(a, b)}
    for name, config in configs.items():
        variants[f"{name} ({config.label()})"] = (
            lambda c=config: tilelab.matmul(a, b, path="persistent", config=c))
    reference = a.double() @ b.double()
    errors = {name: ((out.double() - reference).norm() / reference.norm()).item()
              for name, out in first_calls(variants).items()}
    del reference
    medians = medians_in_turns(variants, rounds)
    torch_ms = medians["torch"]
    print(f"{m}x{n}x{k} {dtype}: torch {torch_ms * 1e3:7.1f} us", flush=True)
    for name, ms in medians.items():
        print(f"  {name:64s} {ms * 1e3:7.1f} us ({torch_ms / ms:.3f}x torch) err {errors[name]:.1e}", flush=True)
    for name, config in configs.items():
        print(f"  {name}: {registers(a, b, config)}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    for dtype in (torch.float16, torch.bfloat16):
        for shape in SHAPES:
            probe(shape, dtype, args.rounds)


if __name__ == "__main__":
    main()
