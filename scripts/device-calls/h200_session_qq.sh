#!/bin/bash
# Device call QQ (2026-11-29 session 7): the whole GPU suite at the session's final library code, the test that
# must run alone, and the course's reference solutions on the GPU.
export PYTHONPATH=src:.
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 400 python -m pytest tests/gpu -q -m gpu -n 16 \
  -p no:cacheprovider -rfE --durations=8 > "$OUT/h200-gpu-tests-session7.log" 2>&1
echo "suite rc=$?"
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 90 python -m pytest tests/gpu/test_bench_gpu.py -q \
  -m gpu -p no:cacheprovider -rs -k "graph_and_events" >> "$OUT/h200-gpu-tests-session7.log" 2>&1
echo "alone rc=$?"
timeout 90 python -m learning.check all --solution > "$OUT/h200-learning-solutions.log" 2>&1
echo "solutions rc=$?"
grep -E "^(FAILED|ERROR)" "$OUT/h200-gpu-tests-session7.log" | cut -c1-300 | head
grep -v Warning "$OUT/h200-gpu-tests-session7.log" | grep -E "passed|failed" | cut -c1-200
tail -15 "$OUT/h200-learning-solutions.log"
