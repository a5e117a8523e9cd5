#!/bin/bash
# Device call QQQQ (2026-11-29 session 12): call OOOO's fp16 and bf16 sweeps of record again, the same command at
# the same code, for the run-to-run spread.
export PYTHONPATH=src:.
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
VARIANTS="--variants torch,tilelab,tilelab-persistent,tilelab-pingpong"
for dtype in float16 bfloat16; do
  timeout 120 $BENCH --op matmul --dtype $dtype --tune --time-budget 85 --torch-kernels $VARIANTS \
    --output "$OUT/h200-matmul-$dtype-pingpong-repeat.json" > "$OUT/h200-matmul-$dtype-pingpong-repeat.txt" 2>&1
  echo "bench $dtype rc=$?"
  tail -21 "$OUT/h200-matmul-$dtype-pingpong-repeat.txt" | cut -c1-160
done
