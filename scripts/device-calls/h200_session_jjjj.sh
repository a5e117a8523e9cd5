#!/bin/bash
# Device call JJJJ (2026-11-29 session 12): the ping-pong probe kernel with deeper rings, made room for by a
# staging buffer half a tile wide (call IIII: 4 -> 5 stages took 4096^3 from 0.91x to 0.96-0.97x torch).
export PYTHONPATH=src:.
CONFIGS="--config 128x128x64-s5 --config 128x128x64-s6-half --config 128x128x32-s12-half"
timeout 60 python scripts/h200_pingpong_probe.py --check --config 128x128x64-s6-half --config 128x128x32-s12-half \
  2>&1 | grep -v Warning | cut -c1-200 | tee "$OUT/h200-pingpong-check-2.log"
echo "check rc=${PIPESTATUS[0]}"
timeout 230 python scripts/h200_pingpong_probe.py --rounds 10 $CONFIGS --shape 4096,4096,4096 --shape 8192,8192,1024 \
  --shape 4096,4096,11008 --shape 4096,11008,4096 --shape 8192,8192,8192 > "$OUT/h200-pingpong-probe-2.log" 2>&1
echo "probe fp16 rc=$?"
timeout 80 python scripts/h200_pingpong_probe.py --rounds 10 --dtype bfloat16 $CONFIGS --shape 4096,4096,4096 \
  --shape 8192,8192,1024 > "$OUT/h200-pingpong-probe-2-bfloat16.log" 2>&1
echo "probe bf16 rc=$?"
cat "$OUT/h200-pingpong-probe-2.log" "$OUT/h200-pingpong-probe-2-bfloat16.log" | grep -v Warning | cut -c1-160
