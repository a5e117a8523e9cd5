#!/bin/bash
# Device call VVV (2026-11-29 session 10): deep pipelines (8-12 stages) as pointer/descriptor candidates for
# 512^3 to 2048^3: a probe in turns, the re-tune of those buckets with them, kernel-bench on the retuned cache,
# and the GPU test of every tunable config.
export PYTHONPATH=src:.
timeout 150 python scripts/h200_deep_pipeline_probe.py --rounds 6 > "$OUT/h200-deep-pipeline-probe.log" 2>&1
echo "probe rc=$?"; cat "$OUT/h200-deep-pipeline-probe.log"
mkdir -p "$OUT/cache"
TILELAB_SHIPPED_TUNING=0 TILELAB_CACHE_DIR="$OUT/cache" timeout 150 python scripts/h200_retune.py 512,512,512 \
  1024,1024,1024 2048,2048,2048 > "$OUT/h200-retune-deep-pipelines.log" 2>&1
echo "retune rc=$?"; cut -c1-400 "$OUT/h200-retune-deep-pipelines.log"
BENCH=(python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5)
for dt in float16 bfloat16; do
  TILELAB_CACHE_DIR="$OUT/cache" timeout 50 "${BENCH[@]}" --op matmul --dtype $dt --torch-kernels --variants tilelab \
    --shape 512 512 512 --shape 1000 1000 1000 --shape 1024 1024 1024 --shape 2048 2048 2048 \
    --output "$OUT/h200-matmul-$dt-deep-pipelines.json" > "/tmp/deep-$dt.log" 2>&1
  echo "$dt rc=$?"; grep -E "│|geometric" "/tmp/deep-$dt.log" | cut -c1-150
done
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 100 python -m pytest tests/gpu/test_matmul_gpu.py \
  -q -m gpu -n 16 -p no:cacheprovider -rfE -k "tunable" > "$OUT/h200-gpu-tests-deep-pipelines.log" 2>&1
echo "tests rc=$?"
grep -E "^(FAILED|ERROR)" "$OUT/h200-gpu-tests-deep-pipelines.log" | cut -c1-300 | head
grep -v Warning "$OUT/h200-gpu-tests-deep-pipelines.log" | grep -E "passed|failed" | cut -c1-200
