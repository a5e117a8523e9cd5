#!/bin/bash
# Device call RRRRRRR (2026-11-30, session 23): bundles of up to 32 input channels (PACKED_K 32, QQQQQQQ's best):
# the grouped layers tuned and timed again in fp16, bf16 and fp32 (winners to ship), then the grouped GPU tests.
W=/tmp/w23r; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for dtype in float16 bfloat16 float32; do
  f="$W/w/h200-conv2d_bn_silu-grouped-$dtype-packed32"
  TILELAB_CACHE_DIR="$W/w/tuning-cache" timeout 70 $BENCH --op conv2d_bn_silu-grouped --dtype $dtype \
    --output "$f.json" > "$f.log" 2>&1
  echo "bench $dtype rc=$?"; tail -16 "$f.log" | cut -c1-130
  tar -C "$W" -czf "$OUT/rrrrrrr.tar.gz" w
done
TILELAB_REQUIRE_GPU=1 timeout 100 python -m pytest -q -m gpu -n 16 -p no:cacheprovider -rfE \
  tests/gpu/test_conv_gpu.py -k "group or direct" > "$W/w/h200-gpu-tests-conv-packed32.log" 2>&1
echo "tests rc=$?"; tail -4 "$W/w/h200-gpu-tests-conv-packed32.log" | cut -c1-200
tar -C "$W" -czf "$OUT/rrrrrrr.tar.gz" w
