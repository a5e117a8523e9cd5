#!/bin/bash
# Device call GGG (2026-11-29 session 8), at the session's final library code (line-aligned output rows, the
# operand copies removed): the matmul, registers and bench GPU tests.
export PYTHONPATH=src:.
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 280 python -m pytest tests/gpu/test_matmul_gpu.py \
  tests/gpu/test_registers_gpu.py tests/gpu/test_bench_gpu.py -q -m gpu -n 16 -p no:cacheprovider -rfE \
  > "$OUT/h200-gpu-tests-session8-end.log" 2>&1
echo "tests rc=$?"
grep -E "^(FAILED|ERROR)" "$OUT/h200-gpu-tests-session8-end.log" | cut -c1-300 | head
grep -v Warning "$OUT/h200-gpu-tests-session8-end.log" | grep -E "passed|failed" | cut -c1-200
