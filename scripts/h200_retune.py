"""Re-tune the given shapes on the GPU, ignoring the shipped table (run on the H200).

    TILELAB_SHIPPED_TUNING=0 TILELAB_CACHE_DIR=DIR PYTHONPATH=src:. python scripts/h200_retune.py M,N,K ... \
        [--path persistent]

Without --path, the path each shape takes by default. That path measures its candidates by itself unless it is
the persistent one, whose default is a measured choice and tunes only when asked: large shapes need
`--path persistent`. The winners land in DIR's tuning cache with their timings;
`scripts/merge_tuning_cache.py` ships them.
"""

import argparse
import json
import time

import torch

from tilelab.ops.matmul import pretune


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("shapes", nargs="+", help="M,N,K")
    parser.add_argument("--path", default=None, choices=["pointer", "descriptor", "persistent"])
    args = parser.parse_args()
    started = time.perf_counter()
    for arg in args.shapes:
        shape = tuple(int(d) for d in arg.split(","))
        tuned = pretune([shape], (torch.float16, torch.bfloat16), paths=(args.path,))
        print(json.dumps(tuned), f"{time.perf_counter() - started:.1f} s", flush=True)


if __name__ == "__main__":
    main()
