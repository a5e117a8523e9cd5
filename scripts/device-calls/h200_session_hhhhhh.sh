#!/bin/bash
# Device call HHHHHH (2026-11-30, session 18): split-K tunes in half-octave buckets, so 1024x1024x16384 no longer
# takes the 3 slices tuned at 768x768x16384. Tune it (fp16, bf16) to ship, then kernel-bench long K over small
# outputs with every shipped winner (the fifteenth session's shapes, the off-sector ones, and 1024x1024x16384).
export PYTHONPATH=src:.
W=/tmp/w; mkdir -p "$W/tune-half-octaves"
TILELAB_CACHE_DIR="$W/tune-half-octaves" timeout 120 python scripts/h200_retune.py 1024,1024,16384 \
  > "$W/h200-retune-long-k-half-octaves.log" 2>&1
echo "retune rc=$?"; cut -c1-300 "$W/h200-retune-long-k-half-octaves.log"
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for dtype in float16 bfloat16; do
  TILELAB_CACHE_DIR="$W/tune-half-octaves" timeout 150 $BENCH --op matmul --dtype $dtype --time-budget 70 \
    --variants torch,tilelab --shape 1000 1000 4000 --shape 1024 1024 4096 --shape 1024 1024 8192 \
    --shape 1024 1024 16384 --shape 512 512 8192 --shape 768 768 16384 --shape 512 1024 8192 \
    --shape 256 1024 8192 --shape 256 4096 4096 --shape 128 4096 11008 --shape 1000 1000 16000 \
    --output "$W/h200-matmul-$dtype-long-k-session18.json" > "$W/h200-matmul-$dtype-long-k-session18.txt" 2>&1
  echo "bench $dtype rc=$?"; grep "geometric" "$W/h200-matmul-$dtype-long-k-session18.txt"
done
tar -C /tmp -czf "$OUT/hhhhhh.tar.gz" w
