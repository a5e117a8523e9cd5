#!/bin/bash
# Device call GGGG (2026-11-29 session 11): the matmul, Hopper-path and registers GPU tests at the session's final
# library code (beats_split_k included).
export PYTHONPATH=src:.
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 230 python -m pytest tests/gpu/test_matmul_gpu.py \
  tests/gpu/test_hopper_paths_gpu.py tests/gpu/test_registers_gpu.py -q -m gpu -n 16 -p no:cacheprovider -rfE \
  > "$OUT/h200-gpu-tests-session11-final.log" 2>&1
echo "tests rc=$?"
grep -E "^(FAILED|ERROR)" "$OUT/h200-gpu-tests-session11-final.log" | cut -c1-300 | head
grep -v Warning "$OUT/h200-gpu-tests-session11-final.log" | grep -E "passed|failed" | cut -c1-200
