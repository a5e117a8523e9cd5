#!/bin/bash
# Device call OOO (2026-11-29 session 9): the last wave's rest planned as a problem of its own (split-K at
# 3000^3 and 5000^3) against the rest on the descriptor path (call NNN); the GPU tests that cover it.
export PYTHONPATH=src:.
timeout 150 python scripts/h200_last_wave_probe.py --rest-paths --rounds 10 > "$OUT/h200-last-wave-rest-probe.log" 2>&1
echo "probe rc=$?"
grep -v "plan:" "$OUT/h200-last-wave-rest-probe.log"
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 120 python -m pytest tests/gpu/test_matmul_gpu.py \
  -q -m gpu -n 8 -p no:cacheprovider -rfE -k "last_wave or sectors or split_k or replayed" \
  > "$OUT/h200-gpu-tests-last-wave-rest.log" 2>&1
echo "tests rc=$?"
grep -E "^(FAILED|ERROR)" "$OUT/h200-gpu-tests-last-wave-rest.log" | cut -c1-300 | head
grep -v Warning "$OUT/h200-gpu-tests-last-wave-rest.log" | grep -E "passed|failed" | cut -c1-200
