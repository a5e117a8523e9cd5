#!/bin/bash
# Device call JJJJJJJ (2026-11-30, session 22): rows kept as a head and a tail (`head_and_tail`: 5000 columns
# as 4096 + 1024 lanes) against one power-of-two block, in turns; the row tests; the fp16 row sweeps.
export PYTHONPATH=src:.
W=/tmp/w22j; rm -rf "$W"; mkdir -p "$W/w"
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
timeout 200 python scripts/h200_row_tail_probe.py --rounds 5 > "$W/w/h200-row-tail-probe.log" 2>&1
echo "probe rc=$?"; cat "$W/w/h200-row-tail-probe.log" | cut -c1-150
tar -C "$W" -czf "$OUT/jjjjjjj.tar.gz" w
TILELAB_REQUIRE_GPU=1 timeout 120 python -m pytest -q -n 16 -rfE tests/gpu/test_rows_gpu.py \
  tests/interpreter/test_rows_interpreter.py > "$W/w/h200-gpu-tests-row-tails.log" 2>&1
echo "tests rc=$?"; tail -3 "$W/w/h200-gpu-tests-row-tails.log" | cut -c1-160
tar -C "$W" -czf "$OUT/jjjjjjj.tar.gz" w
for op in softmax rmsnorm; do
  f="$W/w/h200-$op-float16-row-tails"
  timeout 45 $BENCH --op $op --dtype float16 --output "$f.json" > "$f.log" 2>&1
  echo "bench $op rc=$?"; tail -13 "$f.log" | cut -c1-120
  tar -C "$W" -czf "$OUT/jjjjjjj.tar.gz" w
done
