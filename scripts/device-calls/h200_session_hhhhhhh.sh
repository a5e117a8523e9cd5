#!/bin/bash
# Device call HHHHHHH (2026-11-30, session 22): the row kernels' warps counted from a row's real values
# (`row_warps`: rows of 5000 take 8 warps, where the 8192-lane block gave 16). kernel-bench at 4096x5000 in
# three dtypes, both ops, then the row kernels' GPU tests.
export PYTHONPATH=src:.
W=/tmp/w; mkdir -p "$W"
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for dtype in float16 bfloat16 float32; do
  for op in softmax rmsnorm; do
    f="$W/h200-$op-$dtype-rows-of-5000"
    timeout 60 $BENCH --op $op --dtype $dtype --shape 4096 5000 --output "$f.json" > "$f.log" 2>&1
    echo "bench $op $dtype rc=$?"; grep "4096x5000" "$f.log" | cut -c1-120
  done
done
tar -C /tmp -czf "$OUT/hhhhhhh.tar.gz" w
TILELAB_REQUIRE_GPU=1 timeout 120 python -m pytest -q -n 16 -rfE tests/gpu/test_rows_gpu.py \
  tests/interpreter/test_rows_interpreter.py > "$W/h200-gpu-tests-row-warps.log" 2>&1
echo "tests rc=$?"; tail -3 "$W/h200-gpu-tests-row-warps.log" | cut -c1-160
tar -C /tmp -czf "$OUT/hhhhhhh.tar.gz" w
