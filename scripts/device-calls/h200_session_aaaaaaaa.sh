#!/bin/bash
# Device call AAAAAAAA (2026-11-30, session 25): the grouped layers with RegNetX-1.6GF's two (24 channels per
# group, vector hints) in fp16, bf16 and fp32; the new keys tuned on first sight (winners to ship), the others
# from the shipped table. Then conv's GPU tests at the final kernel (hints, half-tile split sum).
W=/tmp/w25a; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for dtype in float16 bfloat16 float32; do
  f="$W/w/h200-conv2d_bn_silu-grouped-$dtype-session25"
  TILELAB_CACHE_DIR="$W/w/tuning-cache" timeout 90 $BENCH --op conv2d_bn_silu-grouped --dtype $dtype \
    --output "$f.json" > "$f.log" 2>&1
  echo "bench $dtype rc=$?"; grep -E "x7 |x17 |geometric" "$f.log" | cut -c1-130
  tar -C "$W" -czf "$OUT/aaaaaaaa.tar.gz" w
done
TILELAB_REQUIRE_GPU=1 timeout 180 python -m pytest -q -n 16 -p no:cacheprovider -rfE tests/gpu/test_conv_gpu.py \
  tests/interpreter/test_conv_interpreter.py tests/interpreter/test_conv_split_k_interpreter.py \
  > "$W/w/h200-gpu-tests-conv-session25.log" 2>&1
echo "tests rc=$?"; tail -3 "$W/w/h200-gpu-tests-conv-session25.log" | cut -c1-200
tar -C "$W" -czf "$OUT/aaaaaaaa.tar.gz" w
