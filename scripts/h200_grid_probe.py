"""Does the persistent grid's size matter when the tiles do not divide evenly among the SMs? (run on the H200)

    PYTHONPATH=src:. python scripts/h200_grid_probe.py [--rounds 10]

At 4096^3 the persistent kernel's 512 tiles of 128x256 go to 132 programs: 116 programs take 4 tiles and
16 take 3. 128 programs would each take exactly 4: the same longest program, 4 SMs idle throughout instead
of 16 SMs idle for the last quarter, and a grid that is a multiple of the GROUP_M band. This times, in turns
and cold, torch.mm, the library's default, and the persistent kernel with the tuned configuration launched
both ways through the same Python launch path: with 132 programs (the control) and with the fewest programs
that keep the longest program's tile count, ceil(tiles / ceil(tiles / 132)) (now the library's
`matmul_hopper.balanced_programs`).
"""

import argparse

import torch
import triton

import tilelab
from scripts.turns import report_in_turns
from tilelab.ops import matmul as matmul_op
from tilelab.ops import matmul_hopper, matmul_plan

SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192), (4096, 11008, 4096), (4096, 4096, 11008), (8192, 8192, 1024)]


def persistent_variant(a, b, programs: int, config=None):
    """The library's persistent kernel with `config` (default: the tuned one), launched on `programs` programs."""
    p = matmul_op._as_gemm(a, b)
    plan = matmul_plan.plan_matmul(p.a3, p.b3, "persistent", "tf32", None)
    c3 = matmul_op._allocate_output(plan, p, a.dtype)
    config = config or matmul_op.persistent_config(plan, p, c3)

    def launch():
        matmul_hopper.launch_persistent(p.a3, p.b3, c3, p.m, p.n, p.k, plan.a_layout, plan.b_layout, "tf32",
                                        config, programs)
        return c3[0]
    return launch, config


def probe(m: int, n: int, k: int, dtype: torch.dtype, rounds: int) -> None:
    a = torch.randn(m, k, device="cuda").to(dtype)
    b = torch.randn(k, n, device="cuda").to(dtype)
    sms = matmul_hopper.device_sms(a.device)
    control, config = persistent_variant(a, b, sms)
    tiles = triton.cdiv(m, config.block_m) * triton.cdiv(n, config.block_n)
    balanced = matmul_hopper.balanced_programs(tiles, sms)
    variants = {"torch": lambda: torch.mm(a, b), "library default": lambda: tilelab.matmul(a, b),
                f"persistent, {sms} programs": control,
                f"persistent, {balanced} programs": persistent_variant(a, b, balanced)[0]}
    report_in_turns(f"== {m}x{n}x{k} {dtype}: {tiles} tiles of {config.label()}", variants, rounds,
                    reference=torch.mm(a.float(), b.float()))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    for dtype in (torch.float16, torch.bfloat16):
        for shape in SHAPES:
            probe(*shape, dtype, args.rounds)


if __name__ == "__main__":
    main()
