#!/bin/bash
# Device call MMM (2026-11-29 session 9): large fp16/bf16 problems whose rows are off 32-byte sectors take the
# descriptor path, which gains a 4-stage 128x256x64 tile; its 4096 and 8192 buckets re-tuned at 3000^3 and
# 5000^3 (the shapes the default now sends there), kernel-bench on such shapes, then the matmul and Hopper GPU
# tests (split-K's ALIGN hint, the routing, every tunable config).
export PYTHONPATH=src:.
mkdir -p "$OUT/cache"
TILELAB_SHIPPED_TUNING=0 TILELAB_CACHE_DIR="$OUT/cache" timeout 150 python scripts/h200_retune.py \
  3000,3000,3000 5000,5000,5000 --path descriptor > "$OUT/h200-retune-rows-off-sectors.log" 2>&1
echo "retune rc=$?"
cat "$OUT/h200-retune-rows-off-sectors.log" | cut -c1-400
BENCH=(python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5)
for dt in float16 bfloat16; do
  TILELAB_CACHE_DIR="$OUT/cache" timeout 110 "${BENCH[@]}" --op matmul --dtype $dt --torch-kernels \
    --variants tilelab,tilelab-persistent,tilelab-descriptor --shape 3000 3000 3000 --shape 5000 5000 5000 \
    --shape 4096 4096 3000 --shape 4096 3000 4096 --shape 2600 2600 2600 --shape 4000 4000 4000 \
    --output "$OUT/h200-matmul-$dt-rows-off-sectors.json" > "/tmp/sectors-$dt.log" 2>&1
  echo "$dt rc=$?"
  grep -E "│|geometric" "/tmp/sectors-$dt.log" | cut -c1-170
done
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 210 python -m pytest tests/gpu/test_matmul_gpu.py \
  tests/gpu/test_hopper_paths_gpu.py -q -m gpu -n 16 -p no:cacheprovider -rfE > "$OUT/h200-gpu-tests-session9.log" 2>&1
echo "tests rc=$?"
grep -E "^(FAILED|ERROR)" "$OUT/h200-gpu-tests-session9.log" | cut -c1-300 | head
grep -v Warning "$OUT/h200-gpu-tests-session9.log" | grep -E "passed|failed" | cut -c1-200
