#!/bin/bash
# Device call BB (2026-11-29 session 5, the last): the whole GPU suite on the final code.
export PYTHONPATH=src:.
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 450 python -m pytest tests/gpu -q -m gpu -n 16 \
  -p no:cacheprovider --durations=5 \
  --deselect tests/gpu/test_bench_gpu.py::test_graph_and_events_agree_on_a_large_kernel \
  > "$OUT/h200-gpu-tests-session5-final.log" 2>&1
echo "rc=$?"; grep -E "^(FAILED|ERROR)" "$OUT/h200-gpu-tests-session5-final.log" | cut -c1-300 | head -20
tail -9 "$OUT/h200-gpu-tests-session5-final.log"
