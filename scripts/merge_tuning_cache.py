"""Merge tuning winners measured on the H200 into the table the package ships.

    python scripts/merge_tuning_cache.py /path/to/tuning-triton3.6.0.json [...]

Entries from the given cache files (written by `kernel-bench --tune`, `tilelab.pretune` or ordinary
tuning with TILELAB_CACHE_DIR set) replace same-key entries of src/tilelab/tuned/h200.json. Only
keys measured on an H200 are taken.
"""

import argparse
import json
from pathlib import Path

TABLE = Path(__file__).resolve().parents[1] / "src" / "tilelab" / "tuned" / "h200.json"


def main(paths: list[str]) -> None:
    table = json.loads(TABLE.read_text())
    added = 0
    for path in paths:
        for key, entry in json.loads(Path(path).read_text())["entries"].items():
            if key.startswith("NVIDIA H200|"):
                table["entries"][key] = entry
                added += 1
    TABLE.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
    print(f"{added} entries merged; the table has {len(table['entries'])}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("caches", nargs="+", help="tuning cache files (tuning-triton<version>.json)")
    main(parser.parse_args().caches)
