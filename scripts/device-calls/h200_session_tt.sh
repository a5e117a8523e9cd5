#!/bin/bash
# Device call TT (2026-11-29 session 7): the fp16 and bf16 sweeps of record again, with even persistent grids.
export PYTHONPATH=src:.
t0=$(date +%s)
BENCH=(python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5)
for dt in float16 bfloat16; do
  timeout 150 "${BENCH[@]}" --op matmul --dtype $dt --tune --time-budget 85 \
    --output "$OUT/h200-matmul-$dt-rounds.json" > "/tmp/sweep-$dt.log" 2>&1
  echo "$dt rc=$? $(( $(date +%s) - t0 )) s"
done
for f in /tmp/sweep-*.log; do echo "== $f"; grep -E "│|geometric" "$f"; tail -2 "$f"; done
