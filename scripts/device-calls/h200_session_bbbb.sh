#!/bin/bash
# Device call BBBB (2026-11-29 session 11): the GPU tests at this session's tf32 planning (registers tiles by size,
# registers before split-K from 64 rows, 64x64 tiles in 12 stages); the tf32 sweep of record over the default
# shapes; kernel-bench at the sizes and skinny shapes the change is for.
export PYTHONPATH=src:.
nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv,noheader
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 250 python -m pytest tests/gpu/test_matmul_gpu.py \
  tests/gpu/test_hopper_paths_gpu.py tests/gpu/test_registers_gpu.py -q -m gpu -n 16 -p no:cacheprovider -rfE \
  > "$OUT/h200-gpu-tests-session11-tf32.log" 2>&1
echo "tests rc=$?"
grep -E "^(FAILED|ERROR)" "$OUT/h200-gpu-tests-session11-tf32.log" | cut -c1-300 | head
grep -v Warning "$OUT/h200-gpu-tests-session11-tf32.log" | grep -E "passed|failed" | cut -c1-200
BENCH=(python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5)
timeout 150 "${BENCH[@]}" --op matmul --dtype float32 --precision tf32 --tune --time-budget 110 --torch-kernels \
  --output "$OUT/h200-matmul-float32-tf32-default-shapes-final.json" > /tmp/tf32-default.log 2>&1
echo "default rc=$?"; grep -E "│|geometric" /tmp/tf32-default.log | cut -c1-160
timeout 100 "${BENCH[@]}" --op matmul --dtype float32 --precision tf32 --torch-kernels \
  --variants tilelab,tilelab-registers --shape 64 4096 4096 --shape 128 4096 4096 --shape 256 4096 4096 \
  --shape 128 4096 11008 --shape 512 4096 4096 --shape 768 4096 4096 --shape 1000 1000 1000 --shape 1024 1024 1024 \
  --output "$OUT/h200-matmul-float32-tf32-sizes-final-tiles.json" > /tmp/tf32-sizes.log 2>&1
echo "sizes rc=$?"; grep -E "│|geometric" /tmp/tf32-sizes.log | cut -c1-160
