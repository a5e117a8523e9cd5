#!/bin/bash
# Device call IIIIIII (2026-11-30, session 22): the row kernels' default sweeps (fp16) with `row_warps`, and
# linear-relu / linear-silu in bf16 (GGGGGGG timed fp16).
export PYTHONPATH=src:.
W=/tmp/w22; rm -rf "$W"; mkdir -p "$W/w"
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for op in softmax rmsnorm; do
  f="$W/w/h200-$op-float16-row-warps"
  timeout 45 $BENCH --op $op --dtype float16 --output "$f.json" > "$f.log" 2>&1
  echo "bench $op rc=$?"; tail -13 "$f.log" | cut -c1-120
done
tar -C "$W" -czf "$OUT/iiiiiii.tar.gz" w
for op in linear-relu linear-silu; do
  f="$W/w/h200-$op-bfloat16"
  timeout 80 $BENCH --op $op --dtype bfloat16 --output "$f.json" > "$f.log" 2>&1
  echo "bench $op rc=$?"; tail -13 "$f.log" | cut -c1-120
  tar -C "$W" -czf "$OUT/iiiiiii.tar.gz" w
done
