#!/bin/bash
# Device call CCCCCCCCC (twenty-eighth session): the runs of record at the final conv kernel (divisions by
# multiplication, unsigned bounds tests; nothing re-tuned: the shipped table's tiles), all three dtypes, dense and
# grouped, and the two dense layers outside the default set that flat K steps were made for; then conv's GPU tests.
W=/tmp/wc9; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for dtype in float16 bfloat16 float32; do
  for op in conv2d_bn_silu conv2d_bn_silu-grouped; do
    f="$W/w/h200-$op-$dtype-session28-final"
    TILELAB_CACHE_DIR="$W/w/tuning-cache" timeout 60 $BENCH --op $op --dtype $dtype --output "$f.json" > "$f.log" 2>&1
    echo "$op $dtype rc=$?"; grep -E "geometric" "$f.log" | cut -c1-110
    tar -C "$W" -czf "$OUT/ccccccccc.tar.gz" w
  done
done
f="$W/w/h200-conv2d_bn_silu-float16-dense-24-40-session28-final"
TILELAB_CACHE_DIR="$W/w/tuning-cache" timeout 40 $BENCH --op conv2d_bn_silu --dtype float16 \
  --shape 32 24 112 112 24 3 1 --shape 32 40 56 56 40 3 1 --output "$f.json" > "$f.log" 2>&1
echo "extras rc=$?"; grep -E "│|geometric" "$f.log" | cut -c1-110
ls "$W/w/tuning-cache" 2>/dev/null && echo "the cache was written: something was tuned" || echo "nothing reached the cache"
tar -C "$W" -czf "$OUT/ccccccccc.tar.gz" w
TILELAB_REQUIRE_GPU=1 timeout 170 python -m pytest -q -n 16 -p no:cacheprovider -rfE -W ignore --maxfail=3 \
  tests/gpu/test_conv_gpu.py tests/interpreter/test_conv_flat_k_interpreter.py \
  tests/interpreter/test_conv_interpreter.py tests/interpreter/test_conv_split_k_interpreter.py \
  > "$W/w/h200-gpu-tests-conv-session28-final.log" 2>&1
echo "tests rc=$?"; grep -E "FAILED|ERROR|passed|failed" "$W/w/h200-gpu-tests-conv-session28-final.log" | tail -5 | cut -c1-200
tar -C "$W" -czf "$OUT/ccccccccc.tar.gz" w
