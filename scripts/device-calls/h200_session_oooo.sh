#!/bin/bash
# Device call OOOO (2026-11-29 session 12): the final code's GPU tests (pingpong, matmul, Hopper paths,
# registers), the fp16 and bf16 sweeps of record over the default shapes (pingpong now also takes
# 4096x11008x4096, whose last wave its tiles fill better), and an fp16 sweep of shapes outside the default set.
export PYTHONPATH=src:.
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 280 python -m pytest tests/gpu/test_pingpong_gpu.py \
  tests/gpu/test_matmul_gpu.py tests/gpu/test_hopper_paths_gpu.py tests/gpu/test_registers_gpu.py -q -m gpu -n 16 \
  -p no:cacheprovider -rfE > "$OUT/h200-gpu-tests-session12-final.log" 2>&1
echo "tests rc=$?"
grep -E "^(FAILED|ERROR)" "$OUT/h200-gpu-tests-session12-final.log" | cut -c1-300 | head
grep -v Warning "$OUT/h200-gpu-tests-session12-final.log" | grep -E "passed|failed" | cut -c1-200
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
VARIANTS="--variants torch,tilelab,tilelab-persistent,tilelab-pingpong"
for dtype in float16 bfloat16; do
  timeout 120 $BENCH --op matmul --dtype $dtype --tune --time-budget 85 --torch-kernels $VARIANTS \
    --output "$OUT/h200-matmul-$dtype-pingpong-final.json" > "$OUT/h200-matmul-$dtype-pingpong-final.txt" 2>&1
  echo "bench $dtype rc=$?"
  tail -21 "$OUT/h200-matmul-$dtype-pingpong-final.txt" | cut -c1-160
done
timeout 120 $BENCH --op matmul --dtype float16 $VARIANTS --shape 8192 8192 512 --shape 4096 4096 1024 \
  --shape 8192 4096 1024 --shape 4096 4096 2048 --shape 4096 5504 4096 --shape 5120 5120 4096 \
  --shape 11008 4096 4096 --shape 6144 6144 4096 --output "$OUT/h200-matmul-float16-pingpong-shapes.json" \
  > "$OUT/h200-matmul-float16-pingpong-shapes.txt" 2>&1
echo "bench shapes rc=$?"
tail -17 "$OUT/h200-matmul-float16-pingpong-shapes.txt" | cut -c1-160
