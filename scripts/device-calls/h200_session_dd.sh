#!/bin/bash
# Device call DD (2026-11-29 session 5): tuning.choose now walks tuning.turn_order; the GPU tests that tune
# (pretune, fp8 pretune, the split-K and descriptor paths that tune on first sight).
export PYTHONPATH=src:.
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 200 python -m pytest tests/gpu \
  -k "pretune or shapes_paths_dtypes or replay" -q -m gpu -n 16 -p no:cacheprovider \
  > "$OUT/h200-gpu-tests-turn-order.log" 2>&1
echo "rc=$?"; grep -E "^(FAILED|ERROR)" "$OUT/h200-gpu-tests-turn-order.log" | cut -c1-300 | head -20
tail -3 "$OUT/h200-gpu-tests-turn-order.log"
