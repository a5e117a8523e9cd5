#!/bin/bash
# Device call NNNN (2026-11-29 session 12): the pingpong kernel at K = 4096 where its 128x128 tiles fill the last
# wave better than the persistent kernel's 128x256 (4096x11008x4096: 21 tile-units per SM against 22; 1.05-1.07x
# against 1.01-1.03x in calls JJJJ, LLLL, MMMM), and where they do not (equal waves: 6144^2, 8192x11008).
export PYTHONPATH=src:.
timeout 300 python scripts/h200_pingpong_probe.py --rounds 10 --config 128x128x64-s6-half --grid even \
  --shape 11008,4096,4096 --shape 4096,5504,4096 --shape 5120,5120,4096 --shape 6144,6144,4096 \
  --shape 8192,11008,4096 --shape 3072,8192,4096 > "$OUT/h200-pingpong-probe-4.log" 2>&1
echo "probe rc=$?"
grep -v Warning "$OUT/h200-pingpong-probe-4.log" | cut -c1-160
