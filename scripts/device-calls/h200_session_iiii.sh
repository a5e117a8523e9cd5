#!/bin/bash
# Device call IIII (2026-11-29 session 12): the ping-pong probe kernel with its groups taking turns explicitly
# (call HHHH's version faulted): first each tile against float64, one process per tile, then timings in turns.
export PYTHONPATH=src:.
for config in 128x128x64-s4 128x128x64-s5 64x256x64-s4; do
  timeout 45 python scripts/h200_pingpong_probe.py --check --config $config 2>&1 | grep -v Warning | cut -c1-200
  echo "check $config rc=${PIPESTATUS[0]}"
done | tee "$OUT/h200-pingpong-check.log"
timeout 200 python scripts/h200_pingpong_probe.py --rounds 10 > "$OUT/h200-pingpong-probe.log" 2>&1
echo "probe fp16 rc=$?"
timeout 80 python scripts/h200_pingpong_probe.py --rounds 10 --dtype bfloat16 --shape 4096,4096,4096 \
  --shape 8192,8192,1024 > "$OUT/h200-pingpong-probe-bfloat16.log" 2>&1
echo "probe bf16 rc=$?"
cat "$OUT/h200-pingpong-probe.log" "$OUT/h200-pingpong-probe-bfloat16.log" | grep -v Warning | cut -c1-220
