"""The last wave as a second launch with smaller tiles, against one launch (run on the H200).

    PYTHONPATH=src:. python scripts/h200_last_wave_probe.py [--rounds 10] [--rest-paths]

Needs commit 93b77dd: `tilelab.ops.matmul_last_wave` was removed after calls NNN and OOO measured it
(results/h200-last-wave-probe.log, -rest-probe.log; docs/PERFORMANCE-HISTORY.md, ninth session).

`tilelab.ops.matmul_last_wave` hands the tiles of a poorly filled last wave to a second launch. This times,
in turns with torch, the default planned at every call with the split and without it (LAST_WAVE_MAX_FILL=0),
at shapes where it applies: 3000^3 and 5000^3 (descriptor path since their rows are off sectors) and
mid-sized aligned problems on the descriptor path (2048x3072x2048, 2304^3). `--rest-paths` (call OOO) times
the rest planned by itself (split-K at these shapes) against the rest on the descriptor path (call NNN's).
"""

import argparse
from unittest import mock

import torch

import tilelab
from scripts.turns import report_in_turns
from tilelab.ops import matmul as matmul_op
from tilelab.ops import matmul_last_wave

SHAPES = [(3000, 3000, 3000), (5000, 5000, 5000), (2048, 3072, 2048), (2304, 2304, 2304)]


def planned(a, b, max_fill: float):
    def run():
        matmul_op._REPLAYS.clear()
        with mock.patch.object(matmul_last_wave, "LAST_WAVE_MAX_FILL", max_fill):
            return tilelab.matmul(a, b)
    return run


def rest_on_descriptors(a, b):
    """The split with the rest kept off split-K (what call NNN measured)."""
    run = planned(a, b, matmul_last_wave.LAST_WAVE_MAX_FILL)

    def without_split_k():
        with mock.patch.object(matmul_op, "_split_k_pays_off", lambda *args: False):
            return run()
    return without_split_k


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--rest-paths", action="store_true")
    args = parser.parse_args()
    for m, n, k in SHAPES[:2] if args.rest_paths else SHAPES:
        for dtype in (torch.float16, torch.bfloat16):
            a = torch.randn(m, k, device="cuda").to(dtype)
            b = torch.randn(k, n, device="cuda").to(dtype)
            variants = {"torch": lambda a=a, b=b: torch.mm(a, b),
                        "one launch": planned(a, b, 0.0),
                        "last wave as a second launch": planned(a, b, matmul_last_wave.LAST_WAVE_MAX_FILL)}
            if args.rest_paths:
                variants["... its rest on the descriptor path"] = rest_on_descriptors(a, b)
            report_in_turns(f"== {m}x{n}x{k} {dtype}", variants, args.rounds, reference=a.double() @ b.double())
            print(f"  plan: {matmul_op.describe_plan(a, b)}", flush=True)


if __name__ == "__main__":
    main()
