#!/bin/bash
# Device call WWWWWWWW (twenty-eighth session): the dense convolutions' run of record from the shipped table, after
# VVVVVVVV's eighteen winners (flat K steps won twelve) were merged into it (nothing should reach the cache: no
# tuning); then conv's GPU tests, every flat tile included.
W=/tmp/www; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for dtype in float16 bfloat16 float32; do
  f="$W/w/h200-conv2d_bn_silu-$dtype-session28"
  TILELAB_CACHE_DIR="$W/w/tuning-cache" timeout 110 $BENCH --op conv2d_bn_silu --dtype $dtype \
    --output "$f.json" > "$f.log" 2>&1
  echo "bench $dtype rc=$?"; grep -E "│|geometric" "$f.log" | cut -c1-110
  tar -C "$W" -czf "$OUT/wwwwwwww.tar.gz" w
done
ls "$W/w/tuning-cache" 2>/dev/null && echo "the cache was written: something was tuned" || echo "nothing reached the cache"
TILELAB_REQUIRE_GPU=1 timeout 200 python -m pytest -q -n 16 -p no:cacheprovider -rfE --durations=5 \
  tests/gpu/test_conv_gpu.py tests/interpreter/test_conv_flat_k_interpreter.py \
  tests/interpreter/test_conv_interpreter.py tests/interpreter/test_conv_split_k_interpreter.py \
  > "$W/w/h200-gpu-tests-conv-flat-k.log" 2>&1
echo "tests rc=$?"; tail -3 "$W/w/h200-gpu-tests-conv-flat-k.log" | cut -c1-200
tar -C "$W" -czf "$OUT/wwwwwwww.tar.gz" w
