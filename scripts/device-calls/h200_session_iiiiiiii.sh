#!/bin/bash
# Device call IIIIIIII (twenty-sixth session, branch conv-direct-rows): HHHHHHHH's fp32 half and its GPU tests,
# which ran past their 110 s there. Run from a `git archive` of the commit named by TILELAB_SOURCE_COMMIT
# (device-snapshot.tar; the same sources as HHHHHHHH's 2f95db3). The shipped table's direct-kernel keys are
# dropped in this copy, so the fp32 grouped layers tune them on first sight; then every conv GPU test.
W=/tmp/wii; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
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
f="$W/w/h200-conv2d_bn_silu-grouped-float32-direct-rows"
TILELAB_CACHE_DIR="$W/w/tuning-cache-fp32" timeout 190 $BENCH --op conv2d_bn_silu-grouped --dtype float32 \
  --output "$f.json" > "$f.log" 2>&1
echo "bench float32 rc=$?"; grep -E "x72 |x120 |x64 |x144 |geometric" "$f.log" | cut -c1-110
tar -C "$W" -czf "$OUT/iiiiiiii.tar.gz" w
TILELAB_REQUIRE_GPU=1 timeout 290 python -m pytest -q -n 16 -p no:cacheprovider -rfE --durations=5 \
  tests/gpu/test_conv_gpu.py tests/interpreter/test_conv_groups_interpreter.py \
  tests/interpreter/test_conv_interpreter.py > "$W/w/h200-gpu-tests-conv-direct-rows.log" 2>&1
echo "tests rc=$?"; tail -8 "$W/w/h200-gpu-tests-conv-direct-rows.log" | cut -c1-200
tar -C "$W" -czf "$OUT/iiiiiiii.tar.gz" w
