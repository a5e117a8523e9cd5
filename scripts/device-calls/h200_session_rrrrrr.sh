#!/bin/bash
# Device call RRRRRR (2026-11-30, session 19): kernel-bench at shapes between powers of two with the wide tiles'
# shipped winners; wide tiles against the persistent and pingpong defaults at larger such shapes.
export PYTHONPATH=src:.
W=/tmp/w; mkdir -p "$W"
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for dtype in float16 bfloat16; do
  timeout 150 $BENCH --dtype $dtype --variants tilelab --shape 768 768 768 --shape 1536 1536 1536 \
    --shape 1536 1536 4096 --shape 768 3072 4096 --shape 768 4096 4096 --shape 3072 3072 3072 \
    --output "$W/h200-matmul-$dtype-wide-tiles.json" > "$W/h200-matmul-$dtype-wide-tiles.txt" 2>&1
  echo "bench $dtype rc=$?"; tail -14 "$W/h200-matmul-$dtype-wide-tiles.txt" | cut -c1-160
done
timeout 200 python scripts/h200_wide_large_probe.py --rounds 10 > "$W/h200-wide-large-probe.log" 2>&1
echo "probe rc=$?"; cut -c1-150 "$W/h200-wide-large-probe.log"
tar -C /tmp -czf "$OUT/rrrrrr.tar.gz" w
