"""One GEMM with A's and B's rows off sectors: the persistent kernel in row classes against the default's
descriptor kernel in classes. (run on the H200)

    PYTHONPATH=src:. python scripts/h200_persistent_classes_probe.py [--rounds 10]

One GEMM with B's rows off sectors takes the descriptor kernel (`_persistent_pays_off`: the persistent kernel
measured slower there, call MMM), which reads A's rows in classes since the sixteenth session. The persistent
kernel reads in classes since the seventeenth; whether it now beats one program per tile at the large
off-sector shapes is measured here, each tuned (`tilelab.pretune` for the persistent path), in turns with torch.
"""

import argparse
import functools

import torch

import tilelab
from scripts.turns import report_in_turns
from tilelab.ops import matmul as matmul_op
from tilelab.reference import matmul_reference

SHAPES = [(3000, 3000, 3000), (5000, 5000, 5000), (2000, 3000, 3000)]


def recorded(a, b, path=None):
    """tilelab.matmul(a, b, path=path), tuned, then its recorded launch; and its plan."""
    matmul_op._REPLAYS.clear()
    if path == "persistent":
        tilelab.pretune([(a.shape[0], b.shape[1], a.shape[1])], dtypes=(a.dtype,), paths=(path,))
    tilelab.matmul(a, b, path=path)
    plan = matmul_op.describe_plan(a, b, path=path)
    (replay,) = matmul_op._REPLAYS.values()
    return (lambda: replay(a, b)), plan


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    for dtype, shapes in ((torch.float16, SHAPES), (torch.bfloat16, SHAPES[:1])):
        for m, n, k in shapes:
            a = torch.randn(m, k, device="cuda", dtype=dtype)
            b = torch.randn(k, n, device="cuda", dtype=dtype)
            variants = {"torch": functools.partial(torch.mm, a, b)}
            for name, path in (("default", None), ("persistent", "persistent")):
                variants[name], plan = recorded(a, b, path)
                config = plan["config"] or {}
                print(f"  {name}: {plan['path']}, {plan['row_classes']} classes, {config.get('block_m')}x"
                      f"{config.get('block_n')}x{config.get('block_k')} s{config.get('num_stages')} "
                      f"w{config.get('num_warps')}{' flat' if config.get('flatten') else ''}"
                      f"{' sub' if config.get('epilogue_subtile') else ''}, {plan.get('programs')} programs",
                      flush=True)
            report_in_turns(f"{m}x{n}x{k} {dtype}", variants, args.rounds, reference=matmul_reference(a, b))


if __name__ == "__main__":
    main()
