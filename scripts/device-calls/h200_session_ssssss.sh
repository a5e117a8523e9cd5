#!/bin/bash
# Device call SSSSSS (2026-11-30, session 19): kernel-bench where the planner now takes wide tiles instead of the
# pingpong or persistent kernel (`_wide_tiles_fill_better`) and where it does not; then every GPU test.
export PYTHONPATH=src:.
W=/tmp/w; mkdir -p "$W"
pack() { tar -C /tmp -czf "$OUT/ssssss.tar.gz" w; }
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for dtype in float16 bfloat16; do
  timeout 100 $BENCH --dtype $dtype --variants tilelab --shape 3072 3072 3072 --shape 3072 3072 4096 \
    --shape 1536 1536 8192 --shape 1536 4096 4096 --shape 4096 3072 4096 \
    --output "$W/h200-matmul-$dtype-wide-rule.json" > "$W/h200-matmul-$dtype-wide-rule.txt" 2>&1
  echo "bench $dtype rc=$?"; tail -12 "$W/h200-matmul-$dtype-wide-rule.txt" | cut -c1-160
done
pack
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 420 python -m pytest tests/gpu -q -m gpu -n 16 \
  -p no:cacheprovider -rfE 2>&1 | grep -v "PytestBenchmarkWarning\|^  warner(" > "$W/h200-gpu-tests-session19.log"
echo "tests rc=${PIPESTATUS[0]}"; grep -E "^(FAILED|ERROR)|passed|failed" "$W/h200-gpu-tests-session19.log" | cut -c1-250 | tail -8
pack
