#!/bin/bash
# Device call CCCC (2026-11-29 session 11): the tf32 default-shape sweep again (its spread), and the registers
# kernel's tiles at the two shapes call BBBB left weakest: 128x11008x4096 (172 tiles of 128x64, 1.3 waves) and
# 512^3 (64x64 in 12 stages against call YYY's 8).
export PYTHONPATH=src:.
nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv,noheader
BENCH=(python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5)
timeout 150 "${BENCH[@]}" --op matmul --dtype float32 --precision tf32 --tune --time-budget 110 --torch-kernels \
  --output "$OUT/h200-matmul-float32-tf32-default-shapes-repeat.json" > /tmp/tf32-default.log 2>&1
echo "default rc=$?"; grep -E "│|geometric" /tmp/tf32-default.log | cut -c1-160
timeout 100 python scripts/h200_tf32_tiles_probe.py --rounds 10 --shape 128,11008,4096 --shape 512,512,512 \
  --shape 128,4096,4096 --config 128x128x32-w8-s6 --config 128x64x32-w4-s6 --config 64x64x32-w4-s12 \
  --config 64x64x32-w4-s8 --config 64x128x32-w8-s8 > "$OUT/h200-tf32-tiles-probe-3.log" 2>&1
echo "probe rc=$?"; cut -c1-200 "$OUT/h200-tf32-tiles-probe-3.log"
