"""Wide tiles (128x192, `tuning.WIDE_CANDIDATES`) where one GEMM is large enough for the persistent or pingpong
kernel, which `plan_matmul` takes by rule without timing the descriptor path (run on the H200)

    PYTHONPATH=src:. python scripts/h200_wide_large_probe.py [--rounds 10]

3072^3 ran 128x192 tiles in 85.5 us against the pingpong default's 90.3 (torch 80.3), 3072x4096x4096 in 147.3
against the persistent default's 138.6 (results/h200-three-halves-probe-2.log). Each shape prints its tile
counts and waves on the SMs, for a rule.
"""

from scripts.turns import operands_with_torch, record_default, recorded_launch, report_in_turns, rounds_argument
from tilelab import tuning
from tilelab.ops import matmul_hopper
from tilelab.reference import matmul_reference

SHAPES = [(3072, 3072, 3072), (1536, 4096, 4096), (4096, 1536, 4096), (3072, 3072, 4096), (4096, 3072, 4096),
          (3072, 4096, 4096), (6144, 6144, 3072), (2048, 3072, 4096)]


def main() -> None:
    rounds = rounds_argument()
    for m, n, k in SHAPES:
        a, b, variants = operands_with_torch(m, n, k)
        sms = matmul_hopper.device_sms(a.device)
        record_default(variants, a, b)
        for bm, bn in ((128, 256), (128, 128), (128, 192)):
            tiles = tuning.ceil_div(m, bm) * tuning.ceil_div(n, bn)
            print(f"  {bm}x{bn}: {tiles} tiles, {tiles / sms:.2f} waves", flush=True)
        for config in tuning.WIDE_CANDIDATES:
            variants[f"wide {config.label()}"], _ = recorded_launch(a, b, path="descriptor", config=config)
        report_in_turns(f"{m}x{n}x{k} float16", variants, rounds, reference=matmul_reference(a, b), by_time=True)


if __name__ == "__main__":
    main()
