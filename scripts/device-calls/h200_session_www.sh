#!/bin/bash
# Device call WWW (2026-11-29 session 10): the matmul and Hopper-path GPU tests at the session's final library
# code; then split-K re-tuned with its deep-pipeline candidates for decode-like buckets not shipped yet, and
# kernel-bench on them with that cache.
export PYTHONPATH=src:.
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 230 python -m pytest tests/gpu/test_matmul_gpu.py \
  tests/gpu/test_hopper_paths_gpu.py tests/gpu/test_registers_gpu.py -q -m gpu -n 16 -p no:cacheprovider -rfE \
  > "$OUT/h200-gpu-tests-session10-final.log" 2>&1
echo "tests rc=$?"
grep -E "^(FAILED|ERROR)" "$OUT/h200-gpu-tests-session10-final.log" | cut -c1-300 | head
grep -v Warning "$OUT/h200-gpu-tests-session10-final.log" | grep -E "passed|failed" | cut -c1-200
mkdir -p "$OUT/cache"
TILELAB_SHIPPED_TUNING=0 TILELAB_CACHE_DIR="$OUT/cache" timeout 150 python scripts/h200_retune.py 64,4096,4096 \
  32,4096,4096 128,11008,4096 128,4096,11008 > "$OUT/h200-retune-decode-buckets.log" 2>&1
echo "retune rc=$?"; cut -c1-300 "$OUT/h200-retune-decode-buckets.log"
BENCH=(python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5)
for dt in float16 bfloat16; do
  TILELAB_CACHE_DIR="$OUT/cache" timeout 45 "${BENCH[@]}" --op matmul --dtype $dt --torch-kernels --variants tilelab \
    --shape 64 4096 4096 --shape 32 4096 4096 --shape 128 11008 4096 --shape 128 4096 11008 \
    --output "$OUT/h200-matmul-$dt-decode-buckets.json" > "/tmp/decode-$dt.log" 2>&1
  echo "$dt rc=$?"; grep -E "│|geometric" "/tmp/decode-$dt.log" | cut -c1-150
done
