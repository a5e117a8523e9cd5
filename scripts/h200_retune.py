"""Re-tune the default path of the given shapes on the GPU, ignoring the shipped table (run on the H200).

    TILELAB_SHIPPED_TUNING=0 TILELAB_CACHE_DIR=DIR PYTHONPATH=src:. python scripts/h200_retune.py M,N,K ...

The winners land in DIR's tuning cache with their timings; `scripts/merge_tuning_cache.py` ships them.
"""

import json
import sys
import time

import torch

from tilelab.ops.matmul import pretune


def main(argv: list[str]) -> None:
    shapes = [tuple(int(d) for d in arg.split(",")) for arg in argv]
    started = time.perf_counter()
    for shape in shapes:
        tuned = pretune([shape], (torch.float16, torch.bfloat16), paths=(None,))
        print(json.dumps(tuned), f"{time.perf_counter() - started:.1f} s", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
