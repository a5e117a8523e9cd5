#!/bin/bash
# Device call UU (2026-11-29 session 7): call TT's two sweeps repeated (the same code, minutes later), and tf32
# at 4096^3 and 8192^3 with even persistent grids.
export PYTHONPATH=src:.
BENCH=(python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5)
for dt in float16 bfloat16; do
  timeout 150 "${BENCH[@]}" --op matmul --dtype $dt --tune --time-budget 85 \
    --output "$OUT/h200-matmul-$dt-rounds-repeat.json" > "/tmp/sweep-$dt.log" 2>&1
  echo "$dt rc=$?"
done
timeout 150 "${BENCH[@]}" --op matmul --dtype float32 --precision tf32 --tune --shape 4096 4096 4096 \
  --shape 8192 8192 8192 --output "$OUT/h200-matmul-float32-tf32-rounds.json" > /tmp/tf32.log 2>&1
echo "tf32 rc=$?"
for f in /tmp/sweep-*.log /tmp/tf32.log; do echo "== $f"; grep -E "geometric" "$f"; tail -1 "$f"; done
grep -E "│" /tmp/tf32.log
