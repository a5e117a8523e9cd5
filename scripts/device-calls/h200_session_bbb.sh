#!/bin/bash
# Device call BBB (2026-11-29 session 8): the whole GPU suite at the session's library code (registers path,
# --torch-kernels), and the test that must run alone.
export PYTHONPATH=src:.
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 420 python -m pytest tests/gpu -q -m gpu -n 16 \
  -p no:cacheprovider -rfE --durations=5 > "$OUT/h200-gpu-tests-session8.log" 2>&1
echo "suite rc=$?"
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 90 python -m pytest tests/gpu/test_bench_gpu.py -q \
  -m gpu -p no:cacheprovider -rs -k "graph_and_events" >> "$OUT/h200-gpu-tests-session8.log" 2>&1
echo "alone rc=$?"
grep -E "^(FAILED|ERROR)" "$OUT/h200-gpu-tests-session8.log" | cut -c1-300 | head
grep -v Warning "$OUT/h200-gpu-tests-session8.log" | grep -E "passed|failed" | cut -c1-200
