#!/bin/bash
# Device call FF (2026-11-29 session 6): re-tune, with turns, the default shapes whose table entries predate turns
# (512^3, 1024^3, 2048^3, 16x4096^2, 128x4096^2; split-K and descriptor/pointer paths gained 64x128x128 with 4
# stages), then a check with the new winners on those shapes and 1000^3, torch in the same turns.
export PYTHONPATH=src:.
t0=$(date +%s)
TILELAB_SHIPPED_TUNING=0 TILELAB_CACHE_DIR="$OUT/cache" timeout 420 python scripts/h200_retune.py \
  128,4096,4096 16,4096,4096 1024,1024,1024 512,512,512 2048,2048,2048 > "$OUT/h200-retune-small-turns.log" 2>&1
echo "retune rc=$? $(( $(date +%s) - t0 )) s"
cut -c1-400 "$OUT/h200-retune-small-turns.log" | grep -v Warning
TILELAB_CACHE_DIR="$OUT/cache" timeout 150 python -m tilelab.bench --ceilings results/h200-calibration.json \
  --no-progress --samples 30 --rounds 5 --op matmul --dtype float16 bfloat16 --variants tilelab \
  --shape 128 4096 4096 --shape 16 4096 4096 --shape 1024 1024 1024 --shape 1000 1000 1000 \
  --shape 512 512 512 --shape 2048 2048 2048 --output "$OUT/h200-matmul-small-retuned.json" > /tmp/check.log 2>&1
echo "check rc=$? $(( $(date +%s) - t0 )) s"; grep -E "│|geometric" /tmp/check.log; tail -2 /tmp/check.log
