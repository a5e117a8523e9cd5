#!/bin/bash
# Device call FFFF (2026-11-29 session 11): the registers path's GPU tests with split-K's line moved by call EEEE
# (matmul_registers.beats_split_k: 48 rows or more, and N >= M).
export PYTHONPATH=src:.
nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv,noheader
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 150 python -m pytest tests/gpu/test_registers_gpu.py \
  -q -m gpu -n 8 -p no:cacheprovider -rfE > "$OUT/h200-gpu-tests-registers-split-k-line.log" 2>&1
echo "tests rc=$?"
grep -E "^(FAILED|ERROR)" "$OUT/h200-gpu-tests-registers-split-k-line.log" | cut -c1-300 | head
grep -v Warning "$OUT/h200-gpu-tests-registers-split-k-line.log" | grep -E "passed|failed" | cut -c1-200
