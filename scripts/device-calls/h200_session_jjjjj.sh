#!/bin/bash
# Device call JJJJJ (2026-11-30 session 15): long K over a small output (weight gradients' shape) with every
# path as a variant; then every GPU test at this code (the fourteenth session's full run did not finish).
export PYTHONPATH=src:.
W=/tmp/j; mkdir -p "$W"
pack() { tar -C /tmp -czf "$OUT/jjjjj.tar.gz" j; }
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
timeout 200 $BENCH --op matmul --dtype float16 --tune --time-budget 170 \
  --variants torch,tilelab,tilelab-descriptor,tilelab-persistent,tilelab-splitk,tilelab-pingpong,tilelab-aligned \
  --shape 1000 1000 4000 --shape 1024 1024 4096 --shape 1024 1024 8192 --shape 512 512 8192 \
  --shape 2048 2048 8192 --shape 1024 4096 8192 --shape 768 768 16384 \
  --output "$W/h200-matmul-float16-long-k.json" 2>&1 | grep -v Warning | tee "$W/h200-matmul-float16-long-k.txt" \
  | grep -E "x.*float|geometric"
pack
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 330 python -m pytest tests/gpu -q -m gpu -n 16 \
  -p no:cacheprovider -rfE 2>&1 | grep -v "PytestBenchmarkWarning\|^  warner(" > "$W/h200-gpu-tests-session15.log"
echo "tests rc=${PIPESTATUS[0]}"
grep -E "^(FAILED|ERROR)" "$W/h200-gpu-tests-session15.log" | cut -c1-300 | head -20
grep -E "passed|failed" "$W/h200-gpu-tests-session15.log" | tail -2 | cut -c1-200
pack
