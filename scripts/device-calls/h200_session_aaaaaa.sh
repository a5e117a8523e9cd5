#!/bin/bash
# Device call AAAAAA (2026-11-30, session 17): the default single-GEMM sweeps at the session's final code (every
# descriptor and persistent kernel now loads and stores through the class-aware helpers).
export PYTHONPATH=src:.
W=/tmp/w; mkdir -p "$W"
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for dtype in float16 bfloat16; do
  timeout 200 $BENCH --op matmul --dtype $dtype --time-budget 85 --variants torch,tilelab \
    --output "$W/h200-matmul-$dtype-session17.json" > "$W/h200-matmul-$dtype-session17.txt" 2>&1
  echo "bench $dtype rc=$?"; grep -i "geometric" -A1 "$W/h200-matmul-$dtype-session17.txt" | head -3
done
tar -C /tmp -czf "$OUT/aaaaaa.tar.gz" w
