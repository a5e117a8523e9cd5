#!/bin/bash
# Device call T (2026-11-29 session 4): the matmul GPU tests on the final code again (call S ran out of time
# with 181 of them passed and none failed), on 16 workers.
export PYTHONPATH=src:.
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 330 python -m pytest tests/gpu/test_matmul_gpu.py \
  tests/gpu/test_hopper_paths_gpu.py -q -m gpu -n 16 -p no:cacheprovider --durations=5 \
  > "$OUT/h200-gpu-tests-final.log" 2>&1
echo "rc=$?"; grep -E "^(FAILED|ERROR)" "$OUT/h200-gpu-tests-final.log" | cut -c1-300 | head -20
tail -9 "$OUT/h200-gpu-tests-final.log"
