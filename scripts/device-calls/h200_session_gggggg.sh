#!/bin/bash
# Device call GGGGGG (2026-11-30, session 18): aligned long K over small outputs (768x768x16384 at 0.83-0.87x):
# do splits that fill whole waves of SMs (36 tiles of 128x128 in 11 slices: 396 programs, 3 waves) beat the
# shipped 64x128x64 in 3 slices (216 programs, 1.6 waves)?
export PYTHONPATH=src:.
W=/tmp/w; mkdir -p "$W"
SPLITS=""
for spec in 64x128x64:4:4:3 64x128x64:8:4:1 128x128x128:3:8:2 128x128x128:3:8:3 128x128x128:3:8:4 \
    128x128x128:3:8:6 128x128x128:3:8:7 128x128x128:3:8:11 128x128x64:3:8:11 128x128x64:3:8:7; do
  SPLITS="$SPLITS --splitk $spec"; done
timeout 400 python scripts/h200_long_k_off_sector_probe.py --rounds 6 --shape 768 768 16384 --shape 1024 1024 8192 \
  --shape 1024 1024 16384 $SPLITS > "$W/h200-long-k-wave-split-probe.log" 2>&1
echo "probe rc=$?"; cut -c1-160 "$W/h200-long-k-wave-split-probe.log"
tar -C /tmp -czf "$OUT/gggggg.tar.gz" w
