#!/bin/bash
# Device call GGGGGGG (2026-11-30, session 22): split-K tiles the tuner never times at 16 and 128 rows of
# 4096x4096 (wider tiles, 8 warps, finer splits, TMA), then kernel-bench's linear-relu and linear-silu (fp16).
export PYTHONPATH=src:.
W=/tmp/w; mkdir -p "$W"
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
timeout 330 python scripts/h200_skinny_sweep_probe.py --rounds 3 > "$W/h200-skinny-sweep-probe.log" 2>&1
echo "probe rc=$?"; grep -v "^  " "$W/h200-skinny-sweep-probe.log" | cut -c1-150; grep -A12 "^==" "$W/h200-skinny-sweep-probe.log"
grep "torch.mm\|  default" "$W/h200-skinny-sweep-probe.log"
tar -C /tmp -czf "$OUT/ggggggg.tar.gz" w
for op in linear-relu linear-silu; do
  timeout 80 $BENCH --op $op --dtype float16 --output "$W/h200-$op-float16.json" > "$W/h200-$op-float16.log" 2>&1
  echo "bench $op rc=$?"; tail -14 "$W/h200-$op-float16.log" | cut -c1-120
  tar -C /tmp -czf "$OUT/ggggggg.tar.gz" w
done
