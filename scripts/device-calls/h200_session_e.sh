#!/bin/bash
# Device call E (2026-11-29 session 3): host overhead after the replay rework, re-tuning of the shapes whose
# choice changed (pointer ALIGN at 1000^3, new split-K tiles at M=128, do_bench-era pointer entries), then the
# fp16 and tf32 sweeps on the fresh winners.
export PYTHONPATH=src:. TILELAB_CACHE_DIR="$OUT/cache"
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --op matmul"
timeout 60 python scripts/h200_overhead.py > "$OUT/h200-overhead.log" 2>&1
TILELAB_SHIPPED_TUNING=0 timeout 200 python scripts/h200_retune.py 1000,1000,1000 128,4096,4096 1024,1024,1024 \
  2048,2048,2048 > "$OUT/retune.log" 2>&1
timeout 150 $BENCH --dtype float16 --tune --time-budget 120 --output "$OUT/h200-matmul-float16.json" \
  > "$OUT/sweep-fp16.log" 2>&1
timeout 90 $BENCH --dtype float32 --precision tf32 --tune --shape 4096 4096 4096 --shape 8192 8192 8192 \
  --output "$OUT/h200-matmul-float32-tf32.json" > "$OUT/sweep-tf32.log" 2>&1
head -30 "$OUT/h200-overhead.log"; cat "$OUT/retune.log" | cut -c1-400; grep -E "│|geometric" "$OUT/sweep-fp16.log" "$OUT/sweep-tf32.log"
