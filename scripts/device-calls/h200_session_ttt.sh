#!/bin/bash
# Device call TTT (2026-11-29 session 10): the fp16/bf16 sweeps of record again, with call SSS's split-K winner
# for the 128x4096x4096 bucket shipped (64x64x128 tiles, 7 stages, no split).
export PYTHONPATH=src:.
BENCH=(python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5)
for dt in float16 bfloat16; do
  timeout 110 "${BENCH[@]}" --op matmul --dtype $dt --tune --time-budget 85 --torch-kernels \
    --output "$OUT/h200-matmul-$dt-rounds-session10-final.json" > "/tmp/sweep-$dt.log" 2>&1
  echo "$dt rc=$?"
  grep -E "│|geometric" "/tmp/sweep-$dt.log" | cut -c1-150; tail -1 "/tmp/sweep-$dt.log"
done
