#!/bin/bash
# Device call MMMM (2026-11-29 session 12): the pingpong GPU tests after call LLLL's three failures (a test shape
# whose B rows TMA cannot read; a float32 C whose staging buffers left no room for 6 stages, now 5), then the
# bf16 sweep of record over the default shapes.
export PYTHONPATH=src:.
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 150 python -m pytest tests/gpu/test_pingpong_gpu.py \
  -q -m gpu -n 16 -p no:cacheprovider -rfE > "$OUT/h200-gpu-tests-session12-pingpong-2.log" 2>&1
echo "tests rc=$?"
grep -E "^(FAILED|ERROR)" "$OUT/h200-gpu-tests-session12-pingpong-2.log" | cut -c1-300 | head
grep -v Warning "$OUT/h200-gpu-tests-session12-pingpong-2.log" | grep -E "passed|failed" | cut -c1-200
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
timeout 260 $BENCH --op matmul --dtype bfloat16 --tune --time-budget 85 --torch-kernels \
  --variants torch,tilelab,tilelab-persistent,tilelab-pingpong \
  --output "$OUT/h200-matmul-bfloat16-pingpong.json" > "$OUT/h200-matmul-bfloat16-pingpong.txt" 2>&1
echo "bench rc=$?"
tail -22 "$OUT/h200-matmul-bfloat16-pingpong.txt" | cut -c1-200
