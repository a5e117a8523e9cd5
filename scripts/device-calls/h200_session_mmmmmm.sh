#!/bin/bash
# Device call MMMMMM (2026-11-30, session 18): the split-K GPU tests at the session's final code (half-octave
# buckets, the renamed and new shipped entries).
export PYTHONPATH=src:.
W=/tmp/w; mkdir -p "$W"
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 240 python -m pytest tests/gpu/test_matmul_gpu.py \
  tests/gpu/test_hopper_paths_gpu.py -q -m gpu -n 16 -p no:cacheprovider -rfE -k "split or off_sectors or tall_long_k" \
  2>&1 | grep -v "PytestBenchmarkWarning\|^  warner(" > "$W/h200-gpu-tests-session18-end.log"
echo "tests rc=${PIPESTATUS[0]}"; grep -E "^(FAILED|ERROR)|passed|failed" "$W/h200-gpu-tests-session18-end.log" | cut -c1-250 | tail -8
tar -C /tmp -czf "$OUT/mmmmmm.tar.gz" w
