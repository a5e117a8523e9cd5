#!/bin/bash
# Device call ZZZZ (2026-11-30 session 14): every GPU test at the session's final library code; the bf16
# single-GEMM default sweep at this code (the fp16 one ran in call XXXX).
export PYTHONPATH=src:.
W=/tmp/z; mkdir -p "$W"
pack() { tar -C /tmp -czf "$OUT/zzzz.tar.gz" z; }
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
timeout 110 $BENCH --op matmul --dtype bfloat16 --time-budget 85 --variants torch,tilelab \
  --output "$W/h200-matmul-bfloat16-session14.json" 2>&1 | grep -v Warning | tee "$W/h200-matmul-bfloat16-session14.txt" \
  | grep -E "x.*float|geometric"
pack
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 430 python -m pytest tests/gpu -q -m gpu -n 16 \
  -p no:cacheprovider -rfE > "$W/h200-gpu-tests-session14-final.log" 2>&1
echo "tests rc=$?"
grep -E "^(FAILED|ERROR)" "$W/h200-gpu-tests-session14-final.log" | cut -c1-300 | head -20
grep -v Warning "$W/h200-gpu-tests-session14-final.log" | grep -E "passed|failed" | cut -c1-200
pack
