#!/bin/bash
# Device call VVVV (2026-11-29 session 13): fp16/bf16 batches take the persistent kernel from 2**30 multiply-adds
# (call UUUU measured it ahead of one program per tile). kernel-bench's batched sweeps of record, tuned first
# (the tuning cache comes back under $OUT/cache), then every GPU test at this code.
export PYTHONPATH=src:.
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for dt in float16 bfloat16; do
  for op in bmm bmm_nt; do
    TILELAB_CACHE_DIR="$OUT/cache" timeout 150 $BENCH --op $op --dtype $dt --tune --time-budget 100 --torch-kernels \
      --variants torch,tilelab,tilelab-descriptor,tilelab-persistent --output "$OUT/h200-$op-$dt-final.json" 2>&1 \
      | grep -v Warning | tee "$OUT/h200-$op-$dt-final.txt"
  done
done
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 420 python -m pytest tests/gpu -q -m gpu -n 16 \
  -p no:cacheprovider -rfE > "$OUT/h200-gpu-tests-session13-final.log" 2>&1
echo "tests rc=$?"
grep -E "^(FAILED|ERROR)" "$OUT/h200-gpu-tests-session13-final.log" | cut -c1-300 | head -20
grep -v Warning "$OUT/h200-gpu-tests-session13-final.log" | grep -E "passed|failed" | cut -c1-200
