#!/bin/bash
# Device call AAAAA (2026-11-30 session 14): the course's reference solutions on the GPU (exercise 16, the
# batched Triton matmul, included); a repeat of the fp16 batched sweeps at the final code, the default only.
export PYTHONPATH=src:.
W=/tmp/a; mkdir -p "$W"
pack() { tar -C /tmp -czf "$OUT/aaaaa.tar.gz" a; }
timeout 120 python -m learning.check all --solution > "$W/h200-learning-solutions-session14.log" 2>&1
echo "learning rc=$?"; grep -E "^\[" "$W/h200-learning-solutions-session14.log"
pack
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for op in bmm bmm_nt; do
  timeout 100 $BENCH --op $op --dtype float16 --time-budget 70 --variants torch,tilelab \
    --output "$W/h200-$op-float16-session14-repeat.json" 2>&1 | grep -v Warning \
    | tee "$W/h200-$op-float16-session14-repeat.txt" | grep -E "x.*float|geometric"
  pack
done
