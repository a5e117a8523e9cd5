#!/bin/bash
# Device call CCCCCCCC (2026-11-30, session 25): the thirteen grouped layers from the shipped table after
# BBBBBBBB's RegNet winners (output_hint), in fp16, bf16 and fp32: the run of record for the README.
W=/tmp/w25c; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for dtype in float16 bfloat16 float32; do
  f="$W/w/h200-conv2d_bn_silu-grouped-$dtype-output-hint"
  TILELAB_CACHE_DIR="$W/w/tuning-cache" timeout 65 $BENCH --op conv2d_bn_silu-grouped --dtype $dtype \
    --output "$f.json" > "$f.log" 2>&1
  echo "bench $dtype rc=$?"; grep -E "x7 |x17 |geometric" "$f.log" | cut -c1-130
  tar -C "$W" -czf "$OUT/cccccccc.tar.gz" w
done
ls "$W/w/tuning-cache" 2>/dev/null && echo "(a key was tuned: the shipped table missed it)"
