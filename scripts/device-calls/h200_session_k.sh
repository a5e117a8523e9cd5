#!/bin/bash
# Device call K (2026-11-29 session 3): the sweeps again with --rounds 5, so the variants take turns and the
# H200's clock drift hits them alike.
export PYTHONPATH=src:. TILELAB_CACHE_DIR="$OUT/cache"
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> "$OUT/times.txt"; }
BENCH=(python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5)
for dt in float16 bfloat16; do
  timeout 100 "${BENCH[@]}" --op matmul --dtype $dt --tune --time-budget 80 \
    --output "$OUT/h200-matmul-$dt-rounds.json" > "/tmp/sweep-$dt.log" 2>&1; step $dt $?
done
timeout 80 "${BENCH[@]}" --op scaled_matmul --dtype float8_e4m3fn --tune \
  --output "$OUT/h200-scaled-matmul-fp8-rounds.json" > /tmp/sweep-fp8.log 2>&1; step fp8 $?
timeout 70 "${BENCH[@]}" --op matmul --dtype float32 --precision tf32 --tune --shape 4096 4096 4096 \
  --shape 8192 8192 8192 --output "$OUT/h200-matmul-float32-tf32-rounds.json" > /tmp/sweep-tf32.log 2>&1
step tf32 $?
rm -rf "$OUT/cache"
cat "$OUT/times.txt"; for f in /tmp/sweep-*.log; do echo "== $f"; grep -E "│|geometric" "$f"; tail -2 "$f"; done
