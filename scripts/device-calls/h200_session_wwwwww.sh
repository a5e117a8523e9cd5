#!/bin/bash
# Device call WWWWWW (2026-11-30, session 20): the first GPU run of conv2d_bn_silu. Its GPU tests (and the
# interpreter tests, which run on the GPU when there is one), then kernel-bench against torch's three ops in
# float16, tuning every shape on first use into a cache kept for the shipped table.
export PYTHONPATH=src:.
W=/tmp/w; mkdir -p "$W"
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 200 python -m pytest -q -p no:cacheprovider -rfE \
  -n 8 tests/gpu/test_conv_gpu.py tests/interpreter/test_conv_interpreter.py \
  2>&1 | grep -v "PytestBenchmarkWarning\|^  warner(" > "$W/h200-gpu-tests-conv.log"
echo "tests rc=${PIPESTATUS[0]}"; grep -E "^(FAILED|ERROR)|passed|failed" "$W/h200-gpu-tests-conv.log" | cut -c1-300 | tail -12
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for dtype in float16; do
  TILELAB_CACHE_DIR=$W/conv-cache timeout 300 $BENCH --op conv2d_bn_silu --dtype $dtype --torch-kernels \
    --output "$W/h200-conv2d_bn_silu-$dtype.json" > "$W/h200-conv2d_bn_silu-$dtype.log" 2>&1
  echo "bench $dtype rc=$?"; tail -25 "$W/h200-conv2d_bn_silu-$dtype.log"
done
tar -C /tmp -czf "$OUT/wwwwww.tar.gz" w
