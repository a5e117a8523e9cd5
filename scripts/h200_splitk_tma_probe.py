"""Split-K reading A and B through host-built descriptors (TMA) against its masked pointer loads (run on the H200).

    PYTHONPATH=src:. python scripts/h200_splitk_tma_probe.py [--rounds 5]

For each shape: the shipped table's best split-K configurations, each launched both ways (same tiles, same
split), variants taking turns with torch.mm, each timed with tuning.measure_ms (events, cold L2), fp16.
"""

import argparse

import torch

from scripts.turns import medians_in_turns
from tilelab import tuning
from tilelab.ops import matmul as matmul_op
from tilelab.ops import matmul_hopper, matmul_plan
from tilelab.ops.matmul_hopper import HopperConfig

SHAPES = [(128, 4096, 4096), (16, 4096, 4096), (1024, 1024, 1024)]
TOP = 5


def best_configs(a, b, c) -> list[HopperConfig]:
    """The TOP fastest split-K configurations the shipped table timed for this problem."""
    p = matmul_op._as_gemm(a, b)
    plan = matmul_plan.plan_matmul(p.a3, p.b3, "splitk", "tf32", None)
    entry = tuning.cache()._shipped.get(matmul_op._tuning_key(plan, p.a3, p.b3, c[None], p.m, p.n, p.k), {})
    by_label = {cfg.label(): cfg for cfg in matmul_hopper.SPLIT_K_CANDIDATES}
    ranked = sorted(entry.get("timings_ms", {}).items(), key=lambda item: item[1])
    return [by_label[label] for label, _ in ranked if label in by_label][:TOP] or list(
        matmul_hopper.prune(matmul_hopper.SPLIT_K_CANDIDATES, p.m, p.n, 2, 0))[:TOP]


def probe(m: int, n: int, k: int, rounds: int) -> None:
    a = torch.randn(m, k, device="cuda").half()
    b = torch.randn(k, n, device="cuda").half()
    c = torch.empty(m, n, device="cuda", dtype=torch.float16)
    ref = a.double() @ b.double()
    layouts = {"a_layout": matmul_plan.operand_layout(a[None]), "b_layout": matmul_plan.operand_layout(b[None])}
    variants = {"torch": lambda: torch.mm(a, b)}
    for config in best_configs(a, b, c):
        for tma in (False, True):
            extra = layouts if tma else {}

            def launch(config=config, extra=extra):
                matmul_hopper.launch_split_k(a[None], b[None], c[None], m, n, k, "tf32", config, **extra)
            launch()
            err = ((c.double() - ref).norm() / ref.norm()).item()
            variants[f"{config.label():32s} {'tma-host' if tma else 'pointer '} err {err:.0e}"] = launch
    medians = medians_in_turns(variants, rounds)
    torch_ms = medians.pop("torch")
    print(f"{m}x{n}x{k} float16: torch {torch_ms * 1e3:6.1f} us", flush=True)
    for name, ms in medians.items():
        print(f"  {name} {ms * 1e3:6.1f} us ({torch_ms / ms:.3f}x torch)", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    for m, n, k in SHAPES:
        probe(m, n, k, args.rounds)


if __name__ == "__main__":
    main()
