#!/bin/bash
# Device call KKKK (2026-11-29 session 12): where along K the ping-pong kernel stops winning (call JJJJ: 1.065x
# at 8192x8192x1024 against the default's 0.994x, 0.991x at 4096^3 against 0.996x, 0.996x at 8192^3 against 1.034x).
export PYTHONPATH=src:.
timeout 300 python scripts/h200_pingpong_probe.py --rounds 10 --config 128x128x64-s6-half --shape 8192,8192,512 \
  --shape 8192,8192,2048 --shape 4096,4096,1024 --shape 4096,4096,2048 --shape 8192,4096,1024 \
  --shape 4096,8192,2048 --shape 2048,2048,2048 --shape 2048,8192,1024 > "$OUT/h200-pingpong-probe-3.log" 2>&1
echo "probe rc=$?"
grep -v Warning "$OUT/h200-pingpong-probe-3.log" | cut -c1-160
