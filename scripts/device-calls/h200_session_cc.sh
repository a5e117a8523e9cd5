#!/bin/bash
# Device call CC (2026-11-29 session 5): untuned fast-accumulation fp8 now starts from the fused tile; the fp8
# GPU tests on that code.
export PYTHONPATH=src:.
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 200 python -m pytest tests/gpu -k "fp8 or scaled" -q -m gpu \
  -n 16 -p no:cacheprovider > "$OUT/h200-gpu-tests-fp8-default.log" 2>&1
echo "rc=$?"; grep -E "^(FAILED|ERROR)" "$OUT/h200-gpu-tests-fp8-default.log" | cut -c1-300 | head -20
tail -3 "$OUT/h200-gpu-tests-fp8-default.log"
