#!/bin/bash
# Device call ZZZZZZ (2026-11-30, session 21): every GPU test. Session 20's epilogue parameters touch every
# pointer, descriptor and persistent launch and replay, and its review refactors (replays, backwards) ran only on
# the interpreter; YYYYYY's partial run stopped at 72%.
export PYTHONPATH=src:.
W=/tmp/w; mkdir -p "$W"
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 565 python -m pytest tests/gpu -q \
  -m gpu -n 16 -p no:cacheprovider -rfE --durations=12 2>&1 \
  | grep -v "PytestBenchmarkWarning\|^  warner(" > "$W/h200-gpu-tests-session21-start.log"
echo "tests rc=${PIPESTATUS[0]}"; grep -E "^(FAILED|ERROR)|passed|failed" "$W/h200-gpu-tests-session21-start.log" | cut -c1-300 | tail -12
tar -C /tmp -czf "$OUT/zzzzzz.tar.gz" w
