#!/bin/bash
# Device call L (2026-11-29 session 3): does the descriptor path beat the persistent kernel on large squares when
# the variants take turns (call K measured 1.07x at 8192^3)? Turns of 3 calls, 10 rounds.
export PYTHONPATH=src:. TILELAB_CACHE_DIR="$OUT/cache"
for dt in float16 bfloat16; do
  timeout 120 python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 \
    --rounds 10 --op matmul --dtype $dt --variants torch,tilelab,tilelab-descriptor,tilelab-persistent \
    --shape 8192 8192 8192 --shape 4096 11008 4096 --shape 4096 4096 4096 --shape 4096 4096 11008 \
    --output "$OUT/h200-large-paths-$dt.json" > "/tmp/large-$dt.log" 2>&1
  echo "$dt rc=$?"; grep -E "│|geometric" "/tmp/large-$dt.log"
done
rm -rf "$OUT/cache"
