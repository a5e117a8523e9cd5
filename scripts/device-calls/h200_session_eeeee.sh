#!/bin/bash
# Device call EEEEE (2026-11-30 session 14): the fp16 and bf16 default matmul sweeps with the shipped tiny-shape
# choice of call DDDDD (the session's final code).
export PYTHONPATH=src:.
W=/tmp/e; mkdir -p "$W"
pack() { tar -C /tmp -czf "$OUT/eeeee.tar.gz" e; }
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for dt in float16 bfloat16; do
  timeout 110 $BENCH --op matmul --dtype $dt --time-budget 85 --variants torch,tilelab \
    --output "$W/h200-matmul-$dt-session14-final.json" 2>&1 | grep -v Warning \
    | tee "$W/h200-matmul-$dt-session14-final.txt" | grep -E "x.*float|geometric"
  pack
done
