#!/bin/bash
# Device call CCCCCC (2026-11-30, session 17): the batched default sweeps again at the session's final code (bmm
# repeated; bmm_nt, whose batches keep B stored [N, K] and so no classes).
export PYTHONPATH=src:.
W=/tmp/w; mkdir -p "$W"
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for op in bmm bmm_nt; do for dtype in float16 bfloat16; do
  timeout 120 $BENCH --op $op --dtype $dtype --time-budget 70 --variants torch,tilelab \
    --output "$W/h200-$op-$dtype-session17.json" > "$W/h200-$op-$dtype-session17.txt" 2>&1
  echo "bench $op $dtype rc=$?"; grep "1000x1000\|geometric" "$W/h200-$op-$dtype-session17.txt" | head -3
done; done
tar -C /tmp -czf "$OUT/cccccc.tar.gz" w
