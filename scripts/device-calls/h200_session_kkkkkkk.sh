#!/bin/bash
# Device call KKKKKKK (2026-11-30, session 22): every GPU test at the session's final library code (b0c7abd:
# session 21's work and review mends, `row_warps`), verbose so that a timeout still leaves a count.
export PYTHONPATH=src:.
W=/tmp/w22k; rm -rf "$W"; mkdir -p "$W/w"
TILELAB_REQUIRE_GPU=1 timeout 575 python -m pytest tests/gpu -v -m gpu -n 16 -p no:cacheprovider -rfE \
  --durations=12 > "$W/w/h200-gpu-tests-session22-final.log" 2>&1
echo "tests rc=$?"; tail -25 "$W/w/h200-gpu-tests-session22-final.log" | cut -c1-180
grep -c " PASSED " "$W/w/h200-gpu-tests-session22-final.log"; grep -c " FAILED \| ERROR " "$W/w/h200-gpu-tests-session22-final.log"
tar -C "$W" -czf "$OUT/kkkkkkk.tar.gz" w
