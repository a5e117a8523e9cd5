#!/bin/bash
# Device call SSS (2026-11-29 session 10): split-K gains deep pipelines of 64x64x128 tiles (call RRR's probe:
# unsplit, 6 stages, 0.96x / 0.98x torch at 128x4096x4096 against the default's 0.90x / 0.94x). Re-tune the
# 128x4096x4096 bucket with them, kernel-bench the skinny shapes on that cache, and the split-K GPU tests.
export PYTHONPATH=src:.
mkdir -p "$OUT/cache"
TILELAB_SHIPPED_TUNING=0 TILELAB_CACHE_DIR="$OUT/cache" timeout 200 python scripts/h200_retune.py 128,4096,4096 \
  > "$OUT/h200-retune-skinny-stages.log" 2>&1
echo "retune rc=$?"; cut -c1-600 "$OUT/h200-retune-skinny-stages.log"
BENCH=(python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5)
for dt in float16 bfloat16; do
  TILELAB_CACHE_DIR="$OUT/cache" timeout 100 "${BENCH[@]}" --op matmul --dtype $dt --torch-kernels --variants tilelab \
    --shape 128 4096 4096 --shape 96 4096 4096 --shape 128 4096 3072 --shape 128 3072 4096 --shape 80 4096 4096 \
    --output "$OUT/h200-matmul-$dt-skinny-stages.json" > "/tmp/skinny-$dt.log" 2>&1
  echo "$dt rc=$?"; grep -E "│|geometric" "/tmp/skinny-$dt.log" | cut -c1-150
done
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 200 python -m pytest tests/gpu/test_matmul_gpu.py \
  tests/gpu/test_hopper_paths_gpu.py -q -m gpu -n 16 -p no:cacheprovider -rfE -k "split" \
  > "$OUT/h200-gpu-tests-skinny-stages.log" 2>&1
echo "tests rc=$?"
grep -E "^(FAILED|ERROR)" "$OUT/h200-gpu-tests-skinny-stages.log" | cut -c1-300 | head
grep -v Warning "$OUT/h200-gpu-tests-skinny-stages.log" | grep -E "passed|failed" | cut -c1-200
