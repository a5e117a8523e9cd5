#!/bin/bash
# Device call UUUUUUUU (twenty-eighth session): tiles with more warps per SM for the small default shapes
# (scripts/h200_small_tiles_probe.py), fp16 at 127x255x65, 512^3, 1000^3 and 1024^3, then bf16 at the first two.
W=/tmp/wuu; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
log="$W/w/h200-small-tiles-probe-float16.log"
timeout 330 python scripts/h200_small_tiles_probe.py > "$log" 2>&1
echo "fp16 rc=$?"; cat "$log"
tar -C "$W" -czf "$OUT/uuuuuuuu.tar.gz" w
log="$W/w/h200-small-tiles-probe-bfloat16.log"
timeout 150 python scripts/h200_small_tiles_probe.py --dtype bfloat16 --shape 127x255x65 --shape 512x512x512 \
  > "$log" 2>&1
echo "bf16 rc=$?"; cat "$log"
tar -C "$W" -czf "$OUT/uuuuuuuu.tar.gz" w
