#!/bin/bash
# Device call FFFFF (2026-11-30 session 14): every GPU test at the session's final code (the tiny shape's new
# tuning candidate and shipped entry included).
export PYTHONPATH=src:.
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 280 python -m pytest tests/gpu -q -m gpu -n 16 \
  -p no:cacheprovider -rfE 2>&1 | grep -v "PytestBenchmarkWarning\|^  warner(" > "$OUT/h200-gpu-tests-session14-end.log"
echo "tests rc=${PIPESTATUS[0]}"
grep -E "^(FAILED|ERROR)" "$OUT/h200-gpu-tests-session14-end.log" | cut -c1-300 | head -20
grep -E "passed|failed" "$OUT/h200-gpu-tests-session14-end.log" | tail -2 | cut -c1-200
