#!/bin/bash
# Device call UUUU (2026-11-29 session 13): kernel-bench's batched ops on the 3-D-descriptor code, tuned first
# (the tuning cache comes back under $OUT/cache for tuned/h200.json), and the default matmul sweep again, to
# check that one GEMM lost nothing to the kernels' new batch index.
export PYTHONPATH=src:.
export TILELAB_CACHE_DIR="$OUT/cache"
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for op in bmm bmm_nt; do
  timeout 200 $BENCH --op $op --dtype float16 --tune --time-budget 120 --torch-kernels \
    --variants torch,tilelab,tilelab-descriptor,tilelab-persistent --output "$OUT/h200-$op-float16.json" 2>&1 \
    | grep -v Warning | tee "$OUT/h200-$op-float16.txt"
done
timeout 150 $BENCH --op matmul --dtype float16 --time-budget 85 --variants torch,tilelab \
  --output "$OUT/h200-matmul-float16-session13.json" 2>&1 | grep -v Warning | tee "$OUT/h200-matmul-float16-session13.txt"
