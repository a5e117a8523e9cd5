"""Does a shape between two powers of two lose by taking its power-of-two bucket's winner? (run on the H200)

    TILELAB_CACHE_DIR=DIR PYTHONPATH=src:. python scripts/h200_bucket_probe.py [--rounds 10]

Split-K's buckets became half octaves after 1024x1024x16384 ran 1.45x slower on the 3 slices tuned at
768x768x16384 (results/h200-long-k-wave-split-probe.log). The other paths still share one winner per power of
two. Here each shape runs its default twice, in turns with torch: with the shipped table (its bucket's winner),
and tuned at the shape itself (the shipped table off, `tilelab.pretune` on the default path, which tunes the
persistent kernel too where the default leads there).
"""

import os

import tilelab
from scripts.turns import operands_with_torch, report_in_turns, rounds_argument
from tilelab import tuning
from tilelab.ops import matmul as matmul_op
from tilelab.reference import matmul_reference

SHAPES = [(768, 768, 768), (1536, 1536, 1536), (3072, 3072, 3072), (6144, 6144, 6144), (1536, 1536, 4096),
          (768, 4096, 4096)]


def recorded(a, b, tune: bool):
    """The default call, planned with the tuning tables as they are (tune=False) or tuned at this shape."""
    matmul_op._REPLAYS.clear()
    if tune:
        shape = (a.shape[0], b.shape[1], a.shape[1])
        tilelab.pretune([shape], dtypes=(a.dtype,), paths=(None,))  # the persistent path too where it leads
    tilelab.matmul(a, b)
    plan = matmul_op.describe_plan(a, b)
    (replay,) = matmul_op._REPLAYS.values()
    config = plan["config"] or {}
    print(f"  {'tuned here' if tune else 'bucket'}: {plan['path']} {config.get('block_m')}x{config.get('block_n')}x"
          f"{config.get('block_k')} s{config.get('num_stages')} w{config.get('num_warps')}", flush=True)
    return lambda: replay(a, b)


def main() -> None:
    rounds = rounds_argument()
    for m, n, k in SHAPES:
        a, b, variants = operands_with_torch(m, n, k)
        os.environ["TILELAB_SHIPPED_TUNING"] = "1"
        tuning._cache = None
        variants["bucket's winner"] = recorded(a, b, tune=False)
        os.environ["TILELAB_SHIPPED_TUNING"] = "0"
        tuning._cache = None
        variants["tuned here"] = recorded(a, b, tune=True)
        report_in_turns(f"{m}x{n}x{k} float16", variants, rounds, reference=matmul_reference(a, b))


if __name__ == "__main__":
    main()
