#!/bin/bash
# Device call JJJJJJ (2026-11-30, session 18): 1000^3 (a default shape, A's and B's rows off sectors) on split-K
# through TMA with tiles that read A and B 8 times each (128x128 in 2 slices), against the default (128x64x128
# in 8 row classes).
export PYTHONPATH=src:.
W=/tmp/w; mkdir -p "$W"
SPLITS=""
for spec in 128x128x128:3:8:2 128x128x64:3:8:2 128x128x64:4:8:2 128x64x128:4:4:2 128x64x128:4:4:1 \
    64x128x128:4:4:1; do SPLITS="$SPLITS --splitk $spec"; done
timeout 200 python scripts/h200_long_k_off_sector_probe.py --rounds 10 --shape 1000 1000 1000 --shape 2000 2000 1000 \
  $SPLITS > "$W/h200-1000-split-k-tma-probe.log" 2>&1
echo "probe rc=$?"; cut -c1-160 "$W/h200-1000-split-k-tma-probe.log"
tar -C /tmp -czf "$OUT/jjjjjj.tar.gz" w
