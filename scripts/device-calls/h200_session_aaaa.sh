#!/bin/bash
# Device call AAAA (2026-11-29 session 11): the registers path's GPU tests with its tiles revised after call ZZZ
# (256x64 in place of 128x128, FULL_FILL 0.6); then skinny tf32 problems, where tilelab.matmul takes split-K
# (0.56x torch at 128x4096x4096 in call ZZZ's sweep), against the registers kernel's small tiles.
export PYTHONPATH=src:.
nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv,noheader
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 120 python -m pytest tests/gpu/test_registers_gpu.py \
  -q -m gpu -n 8 -p no:cacheprovider -rfE > "$OUT/h200-gpu-tests-registers-tiles-2.log" 2>&1
echo "tests rc=$?"
grep -E "^(FAILED|ERROR)" "$OUT/h200-gpu-tests-registers-tiles-2.log" | cut -c1-300 | head
grep -v Warning "$OUT/h200-gpu-tests-registers-tiles-2.log" | grep -E "passed|failed" | cut -c1-200
timeout 200 python scripts/h200_tf32_tiles_probe.py --rounds 10 --shape 16,4096,4096 --shape 64,4096,4096 \
  --shape 128,4096,4096 --shape 256,4096,4096 --shape 128,11008,4096 --shape 128,4096,11008 \
  --shape 512,4096,4096 --shape 768,4096,4096 --config 64x64x32-w4-s8 --config 64x64x32-w4-s12 \
  --config 128x64x32-w4-s6 --config 256x64x32-w4-s5 > "$OUT/h200-tf32-tiles-probe-skinny.log" 2>&1
echo "probe rc=$?"; cut -c1-200 "$OUT/h200-tf32-tiles-probe-skinny.log"
