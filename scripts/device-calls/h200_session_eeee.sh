#!/bin/bash
# Device call EEEE (2026-11-29 session 11): where SPLIT_K_BELOW_M's line lies. Call AAAA timed 16 and 64 rows;
# this times 32 and 48, and problems with many rows but few columns (which split-K also takes), the registers
# kernel's small tiles against split-K, in turns.
export PYTHONPATH=src:.
nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv,noheader
timeout 200 python scripts/h200_tf32_tiles_probe.py --rounds 10 --splitk --shape 32,4096,4096 --shape 48,4096,4096 \
  --shape 4096,128,4096 --shape 4096,64,4096 --shape 2048,128,8192 --shape 4096,32,4096 \
  --config 64x64x32-w4-s12 --config 128x64x32-w4-s6 > "$OUT/h200-tf32-tiles-probe-splitk.log" 2>&1
echo "probe rc=$?"; cut -c1-200 "$OUT/h200-tf32-tiles-probe-splitk.log"
