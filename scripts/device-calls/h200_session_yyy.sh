#!/bin/bash
# Device call YYY (2026-11-29 session 11): the GPU tests at the tenth session's final code (not GPU-run then);
# then the registers kernel (tf32, B through registers) with smaller tiles, against torch and the default, at
# shapes whose default tiles leave SMs idle.
export PYTHONPATH=src:.
nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv,noheader
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 250 python -m pytest tests/gpu/test_matmul_gpu.py tests/gpu/test_hopper_paths_gpu.py \
  tests/gpu/test_registers_gpu.py -q -m gpu -n 16 \
  -p no:cacheprovider -rfE > "$OUT/h200-gpu-tests-session11-start.log" 2>&1
echo "tests rc=$?"
grep -E "^(FAILED|ERROR)" "$OUT/h200-gpu-tests-session11-start.log" | cut -c1-300 | head
grep -v Warning "$OUT/h200-gpu-tests-session11-start.log" | grep -E "passed|failed" | cut -c1-200
timeout 280 python scripts/h200_tf32_tiles_probe.py --rounds 10 > "$OUT/h200-tf32-tiles-probe.log" 2>&1
echo "probe rc=$?"; cat "$OUT/h200-tf32-tiles-probe.log" | cut -c1-200
