#!/bin/bash
# Device call NN (2026-11-29 session 6): the timing-comparison test skips itself under pytest-xdist (gpu_alone)
# and passes when run alone.
export PYTHONPATH=src:.
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 150 python -m pytest tests/gpu/test_bench_gpu.py \
  -q -m gpu -n 4 -p no:cacheprovider -rs -k "graph_and_events or timing_modes" > "$OUT/h200-gpu-tests-gpu-alone.log" 2>&1
echo "xdist rc=$?"
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 150 python -m pytest tests/gpu/test_bench_gpu.py \
  -q -m gpu -p no:cacheprovider -rs -k "graph_and_events" >> "$OUT/h200-gpu-tests-gpu-alone.log" 2>&1
echo "alone rc=$?"
grep -v Warning "$OUT/h200-gpu-tests-gpu-alone.log" | grep -E "passed|failed|SKIPPED|skipped"
