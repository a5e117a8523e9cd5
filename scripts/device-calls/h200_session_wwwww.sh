#!/bin/bash
# Device call WWWWW (2026-11-30, session 17): every GPU test at the narrowed row-class rule (session 16's
# VVVVV ran out of time after 25 passed).
export PYTHONPATH=src:.
W=/tmp/w; mkdir -p "$W"
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 540 python -m pytest tests/gpu -q \
  -m gpu -n 16 -p no:cacheprovider -rfE 2>&1 \
  | grep -v "PytestBenchmarkWarning\|^  warner(" > "$W/h200-gpu-tests-session17-start.log"
echo "tests rc=${PIPESTATUS[0]}"; grep -E "^(FAILED|ERROR)|passed|failed" "$W/h200-gpu-tests-session17-start.log" | cut -c1-250 | tail -8
tar -C /tmp -czf "$OUT/wwwww.tar.gz" w
