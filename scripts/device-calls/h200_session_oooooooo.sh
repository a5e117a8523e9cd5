#!/bin/bash
# Device call OOOOOOOO (twenty-seventh session): NNNNNNNN's tuning for float32 (the shipped table's fp32
# direct-kernel keys dropped in this copy, tuned on first sight by kernel-bench's grouped layers), then the conv
# GPU tests (every direct candidate, capped ones included, on the GPU). Run from a `git archive` of the commit
# named by TILELAB_SOURCE_COMMIT (device-snapshot.tar).
W=/tmp/woo; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
python - <<'PY'
import json
path = "src/tilelab/tuned/h200.json"
table = json.load(open(path))
dropped = [k for k in table["entries"] if "|direct-" in k and "|float32|" in k]
for k in dropped:
    del table["entries"][k]
json.dump(table, open(path, "w"), indent=1)
print(f"dropped {len(dropped)} float32 direct-kernel keys from the shipped table (this copy only)")
PY
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
f="$W/w/h200-conv2d_bn_silu-grouped-float32-register-caps"
TILELAB_CACHE_DIR="$W/w/tuning-cache" timeout 160 $BENCH --op conv2d_bn_silu-grouped --dtype float32 \
  --output "$f.json" > "$f.log" 2>&1
echo "bench float32 rc=$?"; grep -E "│|geometric" "$f.log" | cut -c1-110
tar -C "$W" -czf "$OUT/oooooooo.tar.gz" w
TILELAB_REQUIRE_GPU=1 timeout 340 python -m pytest -q -n 16 -p no:cacheprovider -rfE --durations=5 \
  tests/gpu/test_conv_gpu.py tests/interpreter/test_conv_groups_interpreter.py \
  tests/interpreter/test_conv_interpreter.py tests/interpreter/test_conv_split_k_interpreter.py \
  > "$W/w/h200-gpu-tests-conv-register-caps.log" 2>&1
echo "tests rc=$?"; tail -12 "$W/w/h200-gpu-tests-conv-register-caps.log" | cut -c1-200
tar -C "$W" -czf "$OUT/oooooooo.tar.gz" w
