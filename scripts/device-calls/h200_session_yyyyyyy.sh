#!/bin/bash
# Device call YYYYYYY (2026-11-30, session 25): after merging the half-tile split sum (XXXXXXX), the two dense
# layers that split re-tuned from scratch (TILELAB_SHIPPED_TUNING=0) in fp32, fp16 and bf16, so the split tiles
# compete again with the unsplit ones; then conv's GPU tests (every tile the tuner may choose, replays, graphs).
W=/tmp/w25y; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for dtype in float32 float16 bfloat16; do
  f="$W/w/h200-conv2d_bn_silu-$dtype-split-halves"
  TILELAB_SHIPPED_TUNING=0 TILELAB_CACHE_DIR="$W/w/tuning-cache" timeout 130 $BENCH --op conv2d_bn_silu \
    --dtype $dtype --shape 32 512 7 7 512 3 1 --shape 32 256 14 14 256 3 1 --output "$f.json" > "$f.log" 2>&1
  echo "bench $dtype rc=$?"; grep -E "512|256" "$f.log" | tail -2 | cut -c1-150
  tar -C "$W" -czf "$OUT/yyyyyyy.tar.gz" w
done
TILELAB_REQUIRE_GPU=1 timeout 170 python -m pytest -q -n 16 -p no:cacheprovider -rfE tests/gpu/test_conv_gpu.py \
  tests/interpreter/test_conv_split_k_interpreter.py > "$W/w/h200-gpu-tests-conv-split-halves.log" 2>&1
echo "tests rc=$?"; tail -3 "$W/w/h200-gpu-tests-conv-split-halves.log" | cut -c1-200
tar -C "$W" -czf "$OUT/yyyyyyy.tar.gz" w
