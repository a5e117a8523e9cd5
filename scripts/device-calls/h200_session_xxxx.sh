#!/bin/bash
# Device call XXXX (2026-11-30 session 14): where batches should take the pingpong kernel. Call WWWW had it ahead
# of the persistent kernel on every batch of the default sweeps whose rows start on 32-byte sectors (and far
# behind at 16x1000^3); here smaller batches (below BATCH_PERSISTENT_MIN_WORK, on one program per tile now), long
# K, and rows off sectors in A alone or B alone; then the single-GEMM fp16 sweep at this code (MATRICES = 1).
export PYTHONPATH=src:.
W=/tmp/x; mkdir -p "$W"
pack() { tar -C /tmp -czf "$OUT/xxxx.tar.gz" x; }
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
ALL=torch,tilelab,tilelab-descriptor,tilelab-persistent,tilelab-pingpong
TILELAB_CACHE_DIR="$W/cache" timeout 170 $BENCH --op bmm --dtype float16 --tune --time-budget 140 --variants $ALL \
  --shape 64 128 128 128 --shape 128 128 128 128 --shape 256 128 128 128 --shape 8 256 256 256 \
  --shape 16 256 256 256 --shape 4 512 512 512 --shape 2 1024 1024 1024 --shape 2 4096 4096 4096 \
  --shape 2 2048 2048 8192 --shape 8 1024 1024 1000 --shape 8 1024 1000 1024 \
  --output "$W/h200-bmm-float16-pingpong-shapes.json" 2>&1 | grep -v Warning | tee "$W/h200-bmm-float16-pingpong-shapes.txt"
pack
TILELAB_CACHE_DIR="$W/cache" timeout 100 $BENCH --op bmm_nt --dtype float16 --tune --time-budget 75 --variants $ALL \
  --shape 32 512 512 64 --shape 16 512 512 128 --shape 8 1024 1024 64 --shape 4 1024 1024 128 --shape 8 2048 2048 64 \
  --output "$W/h200-bmm_nt-float16-pingpong-shapes.json" 2>&1 | grep -v Warning | tee "$W/h200-bmm_nt-float16-pingpong-shapes.txt"
pack
timeout 110 $BENCH --op matmul --dtype float16 --time-budget 85 --variants torch,tilelab \
  --output "$W/h200-matmul-float16-session14.json" 2>&1 | grep -v Warning | tee "$W/h200-matmul-float16-session14.txt"
pack
