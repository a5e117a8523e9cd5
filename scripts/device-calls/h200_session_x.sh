#!/bin/bash
# Device call X (2026-11-29 session 5): the tuner now lets candidates take turns (there and back); re-tune the
# five large buckets (persistent path, new 4-stage fused candidate), then the fp16 and bf16 sweeps on that cache.
export PYTHONPATH=src:. TILELAB_CACHE_DIR="$OUT/cache"
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> "$OUT/times.txt"; }
TILELAB_SHIPPED_TUNING=0 timeout 240 python scripts/h200_retune.py 4096,4096,4096 8192,8192,8192 4096,11008,4096 \
  4096,4096,11008 8192,8192,1024 > "$OUT/h200-retune-large-turns.log" 2>&1; step retune $?
BENCH=(python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5)
for dt in float16 bfloat16; do
  timeout 150 "${BENCH[@]}" --op matmul --dtype $dt --tune --time-budget 80 \
    --output "$OUT/h200-matmul-$dt-rounds.json" > "/tmp/sweep-$dt.log" 2>&1; step $dt $?
done
cat "$OUT/times.txt"; cut -c1-700 "$OUT/h200-retune-large-turns.log"
for f in /tmp/sweep-*.log; do echo "== $f"; grep -E "│|geometric" "$f"; tail -2 "$f"; done
