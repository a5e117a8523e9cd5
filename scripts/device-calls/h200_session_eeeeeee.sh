#!/bin/bash
# Device call EEEEEEE (2026-11-30, session 21): kernel-bench for linear (fp16, bf16) with GELU's erf chosen per
# kernel: the polynomial (`gelu`) on the pointer, descriptor, split-K and pingpong kernels, libdevice's erff on
# the persistent kernel (DDDDDDD: the polynomial cost it 1.5-4% at 4096^3).
export PYTHONPATH=src:.
W=/tmp/w; mkdir -p "$W"
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for dtype in float16 bfloat16; do
  timeout 75 $BENCH --op linear --dtype $dtype --output "$W/h200-linear-$dtype.json" > "$W/h200-linear-$dtype.log" 2>&1
  echo "bench linear $dtype rc=$?"; tail -13 "$W/h200-linear-$dtype.log" | cut -c1-120
  tar -C /tmp -czf "$OUT/eeeeeee.tar.gz" w
done
