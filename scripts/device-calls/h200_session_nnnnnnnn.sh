#!/bin/bash
# Device call NNNNNNNN (twenty-seventh session): the direct kernel's candidates with register caps, tuned. Run from
# a `git archive` of the commit named by TILELAB_SOURCE_COMMIT (device-snapshot.tar). The shipped table's
# direct-kernel keys are dropped in this copy, so kernel-bench's grouped layers tune them on first sight (their
# winners are merged into the table afterwards); the implicit-GEMM layers keep their shipped winners. fp16 and
# bf16 here; fp32 and the conv GPU tests in the next call.
W=/tmp/wnn; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
python - <<'PY'
import json
path = "src/tilelab/tuned/h200.json"
table = json.load(open(path))
dropped = [k for k in table["entries"] if "|direct-" in k]
for k in dropped:
    del table["entries"][k]
json.dump(table, open(path, "w"), indent=1)
print(f"dropped {len(dropped)} direct-kernel keys from the shipped table (this copy only)")
PY
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for dtype in float16 bfloat16; do
  f="$W/w/h200-conv2d_bn_silu-grouped-$dtype-register-caps"
  TILELAB_CACHE_DIR="$W/w/tuning-cache" timeout 250 $BENCH --op conv2d_bn_silu-grouped --dtype $dtype \
    --output "$f.json" > "$f.log" 2>&1
  echo "bench $dtype rc=$?"; grep -E "│|geometric" "$f.log" | cut -c1-110
  tar -C "$W" -czf "$OUT/nnnnnnnn.tar.gz" w
done
