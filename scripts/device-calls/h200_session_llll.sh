#!/bin/bash
# Device call LLLL (2026-11-29 session 12): the pingpong path's GPU tests with the matmul, Hopper-path and
# registers ones, then the fp16 sweep of record over the default shapes (pingpong now takes 8192x8192x1024).
export PYTHONPATH=src:.
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 280 python -m pytest tests/gpu/test_pingpong_gpu.py \
  tests/gpu/test_matmul_gpu.py tests/gpu/test_hopper_paths_gpu.py tests/gpu/test_registers_gpu.py -q -m gpu -n 16 \
  -p no:cacheprovider -rfE > "$OUT/h200-gpu-tests-session12-pingpong.log" 2>&1
echo "tests rc=$?"
grep -E "^(FAILED|ERROR)" "$OUT/h200-gpu-tests-session12-pingpong.log" | cut -c1-300 | head
grep -v Warning "$OUT/h200-gpu-tests-session12-pingpong.log" | grep -E "passed|failed" | cut -c1-200
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
timeout 250 $BENCH --op matmul --dtype float16 --tune --time-budget 85 --torch-kernels \
  --variants torch,tilelab,tilelab-persistent,tilelab-pingpong \
  --output "$OUT/h200-matmul-float16-pingpong.json" > "$OUT/h200-matmul-float16-pingpong.txt" 2>&1
echo "bench rc=$?"
tail -30 "$OUT/h200-matmul-float16-pingpong.txt" | cut -c1-200
