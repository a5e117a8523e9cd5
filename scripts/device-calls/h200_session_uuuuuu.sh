#!/bin/bash
# Device call UUUUUU (2026-11-30, session 19): pretune four more shapes between powers of two (as LLM layers
# with 768, 1536 and 3072 features make them), then kernel-bench them on those winners (the cache the table
# merges).
export PYTHONPATH=src:.
W=/tmp/w; mkdir -p "$W/pretune"
SHAPES="(4096, 1536, 1536), (2048, 1536, 4096), (1024, 3072, 4096), (4096, 768, 4096)"
TILELAB_CACHE_DIR="$W/pretune" timeout 120 python -c "
import json, tilelab
for record in tilelab.pretune([$SHAPES], paths=(None,)):
    print(json.dumps(record))
" > "$W/h200-pretune-wide-2.log" 2>&1
echo "pretune rc=$?"; cut -c1-200 "$W/h200-pretune-wide-2.log"
tar -C /tmp -czf "$OUT/uuuuuu.tar.gz" w
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for dtype in float16 bfloat16; do
  TILELAB_CACHE_DIR="$W/pretune" timeout 60 $BENCH --dtype $dtype --variants tilelab --shape 4096 1536 1536 \
    --shape 2048 1536 4096 --shape 1024 3072 4096 --shape 4096 768 4096 \
    --output "$W/h200-matmul-$dtype-wide-tiles-2.json" > "$W/h200-matmul-$dtype-wide-tiles-2.txt" 2>&1
  echo "bench $dtype rc=$?"; tail -11 "$W/h200-matmul-$dtype-wide-tiles-2.txt" | cut -c1-160
done
tar -C /tmp -czf "$OUT/uuuuuu.tar.gz" w
