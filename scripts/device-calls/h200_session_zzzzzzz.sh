#!/bin/bash
# Device call ZZZZZZZ (2026-11-30, session 25): the vector-hints probe (24/40-channel groups and layers, hinted
# against unhinted, and bundles of 16 and 32 for groups of 3); the dense conv layers from the shipped table
# (YYYYYYY's split winners merged) in fp32, fp16 and bf16; the hinted layers' interpreter tests on the GPU.
W=/tmp/w25z; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
timeout 240 python scripts/h200_conv_vector_hints_probe.py > "$W/w/h200-conv-vector-hints-probe.log" 2>&1
echo "probe rc=$?"; cut -c1-120 "$W/w/h200-conv-vector-hints-probe.log"
tar -C "$W" -czf "$OUT/zzzzzzz.tar.gz" w
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for dtype in float32 float16 bfloat16; do
  f="$W/w/h200-conv2d_bn_silu-$dtype-session25"
  TILELAB_CACHE_DIR="$W/w/tuning-cache" timeout 75 $BENCH --op conv2d_bn_silu --dtype $dtype --output "$f.json" \
    > "$f.log" 2>&1
  echo "bench $dtype rc=$?"; grep -E "geometric" "$f.log" | cut -c1-150
  tar -C "$W" -czf "$OUT/zzzzzzz.tar.gz" w
done
ls "$W/w/tuning-cache" 2>/dev/null && echo "(a key was tuned: the shipped table missed it)"
TILELAB_REQUIRE_GPU=1 timeout 60 python -m pytest -q -n 16 -p no:cacheprovider -rfE \
  tests/interpreter/test_conv_interpreter.py -k "hint" > "$W/w/h200-gpu-tests-conv-hints.log" 2>&1
echo "tests rc=$?"; tail -3 "$W/w/h200-gpu-tests-conv-hints.log" | cut -c1-200
tar -C "$W" -czf "$OUT/zzzzzzz.tar.gz" w
