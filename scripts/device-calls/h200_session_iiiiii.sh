#!/bin/bash
# Device call IIIIII (2026-11-30, session 18): one GEMM off sectors, 256-row tiles in 8, 4 or 2 row classes on
# the descriptor kernel (B read half as often), against the default's 128x256 in 8 classes.
export PYTHONPATH=src:.
W=/tmp/w; mkdir -p "$W"
TILELAB_CACHE_DIR="$W/tune-tall" timeout 300 python scripts/h200_tall_tile_classes_probe.py --rounds 10 \
  > "$W/h200-tall-tile-classes-probe.log" 2>&1
echo "probe rc=$?"; cut -c1-160 "$W/h200-tall-tile-classes-probe.log"
tar -C /tmp -czf "$OUT/iiiiii.tar.gz" w
