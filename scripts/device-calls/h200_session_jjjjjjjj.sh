#!/bin/bash
# Device call JJJJJJJJ (twenty-sixth session): the grouped layers' run of record from the shipped table, after
# HHHHHHHH and IIIIIIII's 30 direct-kernel winners were merged into it (nothing should reach the cache: no
# tuning). Run from a `git archive` of the commit named by TILELAB_SOURCE_COMMIT (device-snapshot.tar).
W=/tmp/wjj; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for dtype in float16 bfloat16 float32; do
  f="$W/w/h200-conv2d_bn_silu-grouped-$dtype-session26"
  TILELAB_CACHE_DIR="$W/w/tuning-cache" timeout 90 $BENCH --op conv2d_bn_silu-grouped --dtype $dtype \
    --output "$f.json" > "$f.log" 2>&1
  echo "bench $dtype rc=$?"; grep -E "geometric" "$f.log" | cut -c1-110
  tar -C "$W" -czf "$OUT/jjjjjjjj.tar.gz" w
done
ls "$W/w/tuning-cache" 2>/dev/null && echo "the cache was written: something was tuned" || echo "nothing reached the cache"
