#!/bin/bash
# Device call VVVVV (2026-11-30 session 16): the row-class GPU tests after the rule's narrowing (B off sectors too,
# no extra 128-row tiles): 1002x1000x3000 replaces 1002x2000x3000, whose B rows are on sectors.
export PYTHONPATH=src:.
W=/tmp/w; mkdir -p "$W"
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 150 python -m pytest tests/gpu/test_matmul_gpu.py -q \
  -m gpu -n 16 -p no:cacheprovider -rfE -k "classes or off_sectors or aligned_inputs or replay" 2>&1 \
  | grep -v "PytestBenchmarkWarning\|^  warner(" > "$W/h200-gpu-tests-row-class-rule.log"
echo "tests rc=${PIPESTATUS[0]}"; grep -E "^(FAILED|ERROR)|passed|failed" "$W/h200-gpu-tests-row-class-rule.log" | cut -c1-250 | tail -8
tar -C /tmp -czf "$OUT/vvvvv.tar.gz" w
