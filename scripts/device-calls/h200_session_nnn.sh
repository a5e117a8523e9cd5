#!/bin/bash
# Device call NNN (2026-11-29 session 9): the last wave as a second launch (matmul_last_wave) against one launch,
# then the matmul and Hopper GPU tests at this code (B-only sector rule, last-wave split and its replay).
export PYTHONPATH=src:.
timeout 200 python scripts/h200_last_wave_probe.py --rounds 10 > "$OUT/h200-last-wave-probe.log" 2>&1
echo "probe rc=$?"
grep -v "plan:" "$OUT/h200-last-wave-probe.log"
grep "plan:" "$OUT/h200-last-wave-probe.log" | cut -c1-300
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 260 python -m pytest tests/gpu/test_matmul_gpu.py \
  tests/gpu/test_hopper_paths_gpu.py -q -m gpu -n 16 -p no:cacheprovider -rfE > "$OUT/h200-gpu-tests-last-wave.log" 2>&1
echo "tests rc=$?"
grep -E "^(FAILED|ERROR)" "$OUT/h200-gpu-tests-last-wave.log" | cut -c1-300 | head
grep -v Warning "$OUT/h200-gpu-tests-last-wave.log" | grep -E "passed|failed" | cut -c1-200
