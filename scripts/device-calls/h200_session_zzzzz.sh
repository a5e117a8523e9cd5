#!/bin/bash
# Device call ZZZZZ (2026-11-30, session 17): every GPU test at the session's final kernel code (row classes in
# the persistent kernel and for batches; every descriptor kernel's loads go through the class-aware helpers).
export PYTHONPATH=src:.
W=/tmp/w; mkdir -p "$W"
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 560 python -m pytest tests/gpu -q \
  -m gpu -n 16 -p no:cacheprovider -rfE 2>&1 \
  | grep -v "PytestBenchmarkWarning\|^  warner(" > "$W/h200-gpu-tests-session17-end.log"
echo "tests rc=${PIPESTATUS[0]}"; grep -E "^(FAILED|ERROR)|passed|failed" "$W/h200-gpu-tests-session17-end.log" | cut -c1-250 | tail -8
tar -C /tmp -czf "$OUT/zzzzz.tar.gz" w
