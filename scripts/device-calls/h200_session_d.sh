#!/bin/bash
# Device call D (2026-11-29 session 2): tf32 on the persistent path by default, host overhead, affected GPU tests.
export PYTHONPATH=src:. TILELAB_CACHE_DIR="$OUT/cache"
timeout 90 python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --op matmul \
  --dtype float32 --precision tf32 --tune --shape 4096 4096 4096 --shape 8192 8192 8192 \
  --output "$OUT/h200-matmul-float32-tf32.json" > "$OUT/sweep-tf32.log" 2>&1
timeout 40 python scripts/h200_overhead.py > "$OUT/h200-overhead.log" 2>&1
TILELAB_CACHE_DIR="$OUT/cache-tests" TILELAB_REQUIRE_GPU=1 timeout 200 python -m pytest tests/gpu/test_matmul_gpu.py \
  -q -m gpu -n 8 -p no:cacheprovider > "$OUT/gpu-tests.log" 2>&1
grep -E "│|geometric" "$OUT/sweep-tf32.log"; head -4 "$OUT/h200-overhead.log"; tail -2 "$OUT/gpu-tests.log"
