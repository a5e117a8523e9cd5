"""Where `_wide_tiles_fill_better` now sends one GEMM to the wide tiles: the default against the kernels it
replaced, the pingpong and persistent ones (run on the H200)

    PYTHONPATH=src:. python scripts/h200_wide_rule_probe.py [--rounds 10]

3000^3 with rows on lines (`tilelab.to_aligned`) and 1536x1536x8192 had not been timed on wide tiles before the
rule took them there (results/h200-wide-large-probe.log measured 3072^3 and 3072x3072x4096).
"""

import tilelab
from scripts.turns import operands_with_torch, record_default, recorded_launch, report_in_turns, rounds_argument
from tilelab.reference import matmul_reference


def main() -> None:
    rounds = rounds_argument()
    for m, n, k, aligned in [(3000, 3000, 3000, True), (1536, 1536, 8192, False), (3072, 3072, 2048, False)]:
        a, b, _ = operands_with_torch(m, n, k)
        if aligned:
            a, b = tilelab.to_aligned(a), tilelab.to_aligned(b)
        variants = {"torch": lambda a=a, b=b: a @ b}
        record_default(variants, a, b)
        for path in ("pingpong", "persistent"):
            variants[path], _ = recorded_launch(a, b, path=path)
        report_in_turns(f"{m}x{n}x{k} float16{' (rows on lines)' if aligned else ''}", variants, rounds,
                        reference=matmul_reference(a, b), by_time=True)


if __name__ == "__main__":
    main()
