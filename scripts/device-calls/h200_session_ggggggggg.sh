#!/bin/bash
# Device call GGGGGGGGG (twenty-ninth session): issue 5's targets measured again at the current code, the first
# default matmul sweeps since the seventeenth session (AAAAAA): fp16 and bf16 over the default shapes (torch and the
# default only), tf32 over them, fp8 over scaled_matmul's four shapes in 10 rounds, and 127x255x65's host overhead.
W=/tmp/wg9; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
start=$SECONDS
for dtype in float16 bfloat16; do
  f="$W/w/h200-matmul-$dtype-session29"
  TILELAB_CACHE_DIR="$W/w/tuning-cache" timeout 110 $BENCH --op matmul --dtype $dtype --time-budget 85 \
    --variants torch,tilelab --output "$f.json" > "$f.txt" 2>&1
  echo "matmul $dtype rc=$? $((SECONDS - start)) s"; grep -E "geometric" "$f.txt" | cut -c1-110
  tar -C "$W" -czf "$OUT/ggggggggg.tar.gz" w
done
f="$W/w/h200-matmul-float32-tf32-session29"
TILELAB_CACHE_DIR="$W/w/tuning-cache" timeout 110 $BENCH --op matmul --dtype float32 --precision tf32 --time-budget 85 \
  --variants torch,tilelab --output "$f.json" > "$f.txt" 2>&1
echo "tf32 rc=$? $((SECONDS - start)) s"; grep -E "geometric" "$f.txt" | cut -c1-110
tar -C "$W" -czf "$OUT/ggggggggg.tar.gz" w
f="$W/w/h200-scaled-matmul-fp8-session29"
TILELAB_CACHE_DIR="$W/w/tuning-cache" timeout 100 python -m tilelab.bench --ceilings results/h200-calibration.json \
  --no-progress --samples 40 --rounds 10 --op scaled_matmul --dtype float8_e4m3fn --output "$f.json" > "$f.txt" 2>&1
echo "fp8 rc=$? $((SECONDS - start)) s"; grep -E "geometric" "$f.txt" | cut -c1-110
tar -C "$W" -czf "$OUT/ggggggggg.tar.gz" w
timeout 60 python scripts/h200_overhead.py --rounds 10 > "$W/w/h200-overhead-session29.log" 2>&1
echo "overhead rc=$? $((SECONDS - start)) s"; tail -6 "$W/w/h200-overhead-session29.log"
ls "$W/w/tuning-cache" 2>/dev/null && echo "the cache was written: something was tuned" || echo "nothing reached the cache"
tar -C "$W" -czf "$OUT/ggggggggg.tar.gz" w
