#!/bin/bash
# Device call XXXXXXXX (twenty-eighth session): WWWWWWWW's conv GPU tests hit their 200 s timeout with one failure
# unnamed. First the flat-K tests alone (the GPU file's and the interpreter file's, on the GPU); then the grouped
# layers' run of record from the shipped table (RegNetX's keys re-tuned in VVVVVVVV).
W=/tmp/wxx; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
TILELAB_REQUIRE_GPU=1 timeout 150 python -m pytest -q -n 16 -p no:cacheprovider -rfE -W ignore \
  tests/gpu/test_conv_gpu.py -k "flat" tests/interpreter/test_conv_flat_k_interpreter.py \
  > "$W/w/h200-gpu-tests-conv-flat-k-only.log" 2>&1
echo "flat tests rc=$?"; grep -E "FAILED|ERROR|passed|failed|^E " "$W/w/h200-gpu-tests-conv-flat-k-only.log" | head -30 | cut -c1-250
tar -C "$W" -czf "$OUT/xxxxxxxx.tar.gz" w
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for dtype in float16 bfloat16 float32; do
  f="$W/w/h200-conv2d_bn_silu-grouped-$dtype-session28"
  TILELAB_CACHE_DIR="$W/w/tuning-cache" timeout 90 $BENCH --op conv2d_bn_silu-grouped --dtype $dtype \
    --output "$f.json" > "$f.log" 2>&1
  echo "bench $dtype rc=$?"; grep -E "geometric" "$f.log" | cut -c1-110
  tar -C "$W" -czf "$OUT/xxxxxxxx.tar.gz" w
done
ls "$W/w/tuning-cache" 2>/dev/null && echo "the cache was written: something was tuned" || echo "nothing reached the cache"
