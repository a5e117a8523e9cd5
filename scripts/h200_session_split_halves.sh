#!/bin/bash
# Device call for the branch conv-split-half-tiles (not yet run): conv split-K whose last slice sums and stores
# its tile in two halves (fewer registers: 3 programs per SM). Re-tunes and times the two layers that split on
# main (7x7x512, 14x14x256) in fp16 and fp32, against main's results/h200-conv2d_bn_silu-<dtype>-split-k.json;
# then the conv split-K GPU tests.
W=/tmp/wsh; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for dtype in float16 float32; do
  f="$W/w/h200-conv2d_bn_silu-$dtype-split-halves"
  TILELAB_SHIPPED_TUNING=0 TILELAB_CACHE_DIR="$W/w/tuning-cache" timeout 100 $BENCH --op conv2d_bn_silu \
    --dtype $dtype --shape 32 512 7 7 512 3 1 --shape 32 256 14 14 256 3 1 --output "$f.json" > "$f.log" 2>&1
  echo "bench $dtype rc=$?"; tail -8 "$f.log" | cut -c1-150
  tar -C "$W" -czf "$OUT/split-halves.tar.gz" w
done
TILELAB_REQUIRE_GPU=1 timeout 120 python -m pytest -q -n 16 -p no:cacheprovider -rfE tests/gpu/test_conv_gpu.py \
  tests/interpreter/test_conv_split_k_interpreter.py -k "split" > "$W/w/h200-gpu-tests-conv-split-halves.log" 2>&1
echo "tests rc=$?"; tail -3 "$W/w/h200-gpu-tests-conv-split-halves.log" | cut -c1-200
tar -C "$W" -czf "$OUT/split-halves.tar.gz" w
