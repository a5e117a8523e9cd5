#!/bin/bash
# Device call WWWWWWWWW (thirty-first session): issue 5's fp16 and bf16 default sweeps at the current code (the
# last, GGGGGGGGG, predates the thirtieth session's contract checks, which run on every eager call), then
# 127x255x65's host overhead if time is left. The same command as GGGGGGGGG's.
W=/tmp/ww9; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
cp -a . "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
start=$SECONDS
for dtype in float16 bfloat16; do
  f="$W/w/h200-matmul-$dtype-session31"
  TILELAB_CACHE_DIR="$W/w/tuning-cache" timeout 110 $BENCH --op matmul --dtype $dtype --time-budget 85 \
    --variants torch,tilelab --output "$f.json" > "$f.txt" 2>&1
  echo "matmul $dtype rc=$? $((SECONDS - start)) s"; grep -E "geometric" "$f.txt" | cut -c1-110
  tar -C "$W" -czf "$OUT/wwwwwwwww.tar.gz" w
done
if (( SECONDS - start < 215 )); then
  timeout 60 python scripts/h200_overhead.py --rounds 10 > "$W/w/h200-overhead-session31.log" 2>&1
  echo "overhead rc=$? $((SECONDS - start)) s"; tail -6 "$W/w/h200-overhead-session31.log"
fi
ls "$W/w/tuning-cache" 2>/dev/null && echo "the cache was written: something was tuned" || echo "nothing reached the cache"
tar -C "$W" -czf "$OUT/wwwwwwwww.tar.gz" w
