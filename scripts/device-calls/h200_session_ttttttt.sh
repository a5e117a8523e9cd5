#!/bin/bash
# Device call TTTTTTT (2026-11-30, session 24): conv2d_bn_silu's split-K. The dense layers re-tuned from scratch
# (TILELAB_SHIPPED_TUNING=0, split candidates among them; winners to ship) and timed in fp32, fp16 and bf16; the
# skinny matmul shapes split-K serves (its kernels now share hand_in_slice/sum_of_slices with conv); then the
# conv GPU tests and the split-K tests on the GPU.
W=/tmp/w24t; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for dtype in float32 float16 bfloat16; do
  f="$W/w/h200-conv2d_bn_silu-$dtype-split-k"
  TILELAB_SHIPPED_TUNING=0 TILELAB_CACHE_DIR="$W/w/tuning-cache" timeout 100 $BENCH --op conv2d_bn_silu \
    --dtype $dtype --output "$f.json" > "$f.log" 2>&1
  echo "bench $dtype rc=$?"; tail -14 "$f.log" | cut -c1-150
  tar -C "$W" -czf "$OUT/ttttttt.tar.gz" w
done
f="$W/w/h200-matmul-float16-skinny-split-k"
timeout 50 $BENCH --dtype float16 --shape 16 4096 4096 --shape 128 4096 4096 --output "$f.json" > "$f.log" 2>&1
echo "matmul rc=$?"; tail -5 "$f.log" | cut -c1-150
tar -C "$W" -czf "$OUT/ttttttt.tar.gz" w
TILELAB_REQUIRE_GPU=1 timeout 180 python -m pytest -q -n 16 -p no:cacheprovider -rfE tests/gpu/test_conv_gpu.py \
  tests/interpreter/test_conv_split_k_interpreter.py > "$W/w/h200-gpu-tests-conv-split-k.log" 2>&1
echo "tests rc=$?"; tail -4 "$W/w/h200-gpu-tests-conv-split-k.log" | cut -c1-200
tar -C "$W" -czf "$OUT/ttttttt.tar.gz" w
