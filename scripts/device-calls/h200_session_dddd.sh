#!/bin/bash
# Device call DDDD (2026-11-29 session 11): 128x128 tiles back among the registers kernel's CONFIGS, after
# 256x64 (call CCCC: 0.96x against 0.73x at 128x11008x4096). Its GPU tests, then kernel-bench at the sizes and
# skinny shapes of call BBBB plus 128x11008x4096. (No default shape's tiles change: calls BBBB and CCCC stand.)
export PYTHONPATH=src:.
nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv,noheader
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 150 python -m pytest tests/gpu/test_registers_gpu.py \
  -q -m gpu -n 8 -p no:cacheprovider -rfE > "$OUT/h200-gpu-tests-registers-tiles-final.log" 2>&1
echo "tests rc=$?"
grep -E "^(FAILED|ERROR)" "$OUT/h200-gpu-tests-registers-tiles-final.log" | cut -c1-300 | head
grep -v Warning "$OUT/h200-gpu-tests-registers-tiles-final.log" | grep -E "passed|failed" | cut -c1-200
BENCH=(python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5)
timeout 120 "${BENCH[@]}" --op matmul --dtype float32 --precision tf32 --torch-kernels \
  --variants tilelab,tilelab-registers --shape 64 4096 4096 --shape 128 4096 4096 --shape 256 4096 4096 \
  --shape 128 4096 11008 --shape 128 11008 4096 --shape 512 4096 4096 --shape 768 4096 4096 \
  --shape 1000 1000 1000 --shape 1024 1024 1024 \
  --output "$OUT/h200-matmul-float32-tf32-sizes-session11.json" > /tmp/tf32-sizes.log 2>&1
echo "sizes rc=$?"; grep -E "│|geometric" /tmp/tf32-sizes.log | cut -c1-160
