#!/bin/bash
# Device call W (2026-11-29 session 5): re-tune 127x255x65 (new 32x32x128 candidate) and fp8 with fast
# accumulation (new fused-loop candidates), then the Hopper-path and matmul GPU tests (every candidate).
export PYTHONPATH=src:. TILELAB_CACHE_DIR="$OUT/cache"
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> "$OUT/times.txt"; }
TILELAB_SHIPPED_TUNING=0 timeout 60 python scripts/h200_retune.py 127,255,65 > "$OUT/h200-retune-tiny.log" 2>&1
step retune-tiny $?
TILELAB_SHIPPED_TUNING=0 timeout 150 python -c "
import json
from tilelab.ops.scaled_matmul import pretune_scaled
shapes = [(8192, 8192, 8192), (4096, 4096, 4096), (8192, 8192, 1024), (4096, 16384, 4096)]
print(json.dumps(pretune_scaled(shapes, use_fast_accum=(True,))))" > "$OUT/h200-retune-fp8-fast.log" 2>&1
step retune-fp8 $?
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 330 python -m pytest tests/gpu/test_matmul_gpu.py \
  tests/gpu/test_hopper_paths_gpu.py -q -m gpu -n 16 -p no:cacheprovider --durations=5 \
  > "$OUT/h200-gpu-tests.log" 2>&1; step tests $?
cat "$OUT/times.txt"; cut -c1-600 "$OUT/h200-retune-tiny.log"; cut -c1-1500 "$OUT/h200-retune-fp8-fast.log"
grep -E "^(FAILED|ERROR)" "$OUT/h200-gpu-tests.log" | cut -c1-300 | head -20
tail -9 "$OUT/h200-gpu-tests.log"
