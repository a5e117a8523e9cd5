#!/bin/bash
# Device call ZZZ (2026-11-29 session 11): the registers path's tiles chosen by size (matmul_registers.
# choose_config): its GPU tests, the tf32 sweep over the default shapes (none was recorded before), the sizes
# sweep of calls AAA/QQQ again, and two more tile shapes at the shapes where 128x128 and 128x64 were chosen.
export PYTHONPATH=src:.
nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv,noheader
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 120 python -m pytest tests/gpu/test_registers_gpu.py \
  -q -m gpu -n 8 -p no:cacheprovider -rfE > "$OUT/h200-gpu-tests-registers-tiles.log" 2>&1
echo "tests rc=$?"
grep -E "^(FAILED|ERROR)" "$OUT/h200-gpu-tests-registers-tiles.log" | cut -c1-300 | head
grep -v Warning "$OUT/h200-gpu-tests-registers-tiles.log" | grep -E "passed|failed" | cut -c1-200
BENCH=(python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5)
timeout 150 "${BENCH[@]}" --op matmul --dtype float32 --precision tf32 --tune --time-budget 110 --torch-kernels \
  --output "$OUT/h200-matmul-float32-tf32-default-shapes.json" > /tmp/tf32-default.log 2>&1
echo "default rc=$?"; grep -E "│|geometric" /tmp/tf32-default.log | cut -c1-160
timeout 90 "${BENCH[@]}" --op matmul --dtype float32 --precision tf32 --torch-kernels \
  --variants tilelab,tilelab-registers,tilelab-persistent --shape 512 4096 4096 --shape 1000 1000 1000 \
  --shape 1024 1024 1024 --shape 2048 2048 2048 --shape 4096 11008 4096 --shape 8192 8192 1024 \
  --output "$OUT/h200-matmul-float32-tf32-sizes-tiles.json" > /tmp/tf32-sizes.log 2>&1
echo "sizes rc=$?"; grep -E "│|geometric" /tmp/tf32-sizes.log | cut -c1-160
timeout 100 python scripts/h200_tf32_tiles_probe.py --rounds 10 --shape 512,4096,4096 --shape 1000,1000,1000 \
  --shape 768,4096,4096 --config 128x128x32-w8-s6 --config 256x64x32-w4-s5 --config 128x64x32-w4-s6 \
  --config 128x64x32-w4-s8 --config 256x128x32-w8-s4 > "$OUT/h200-tf32-tiles-probe-2.log" 2>&1
echo "probe rc=$?"; cut -c1-200 "$OUT/h200-tf32-tiles-probe-2.log"
