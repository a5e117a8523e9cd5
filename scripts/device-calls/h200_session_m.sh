#!/bin/bash
# Device call M (2026-11-29 session 3): replays allocate with a.new_empty; the overhead and the matmul GPU tests.
export PYTHONPATH=src:.
timeout 40 python scripts/h200_overhead.py > "$OUT/h200-overhead-new-empty.log" 2>&1
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 190 python -m pytest tests/gpu/test_matmul_gpu.py -q \
  -m gpu -n 8 -p no:cacheprovider > "$OUT/h200-gpu-tests-matmul-new-empty.log" 2>&1
head -11 "$OUT/h200-overhead-new-empty.log"; grep -E "^(FAILED|ERROR)" "$OUT/h200-gpu-tests-matmul-new-empty.log" | head
tail -1 "$OUT/h200-gpu-tests-matmul-new-empty.log"
