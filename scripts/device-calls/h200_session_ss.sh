#!/bin/bash
# Device call SS (2026-11-29 session 7): persistent grids split evenly (balanced_programs). GPU tests of the
# persistent, fp8 and replay paths; the five large shapes and the fp8 shapes in 10 rounds against torch.
export PYTHONPATH=src:.
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 40 --rounds 10"
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 200 python -m pytest tests/gpu -q -m gpu -n 12 \
  -p no:cacheprovider -rfE -k "persistent or fp8 or scaled or replay or graph or large" \
  > "$OUT/h200-gpu-tests-even-grid.log" 2>&1
echo "tests rc=$?"
grep -v Warning "$OUT/h200-gpu-tests-even-grid.log" | grep -E "^(FAILED|ERROR)|passed|failed" | cut -c1-200
timeout 200 $BENCH --op matmul --dtype float16 bfloat16 --variants tilelab --shape 4096 4096 4096 \
  --shape 8192 8192 8192 --shape 4096 11008 4096 --shape 4096 4096 11008 --shape 8192 8192 1024 \
  --output "$OUT/h200-matmul-large-even-grid.json" > "$OUT/h200-matmul-large-even-grid.txt" 2>&1
echo "large rc=$?"
tail -30 "$OUT/h200-matmul-large-even-grid.txt"
timeout 150 $BENCH --op scaled_matmul --dtype float8_e4m3fn --output "$OUT/h200-scaled-matmul-fp8-even-grid.json" \
  > "$OUT/h200-scaled-matmul-fp8-even-grid.txt" 2>&1
echo "fp8 rc=$?"
tail -20 "$OUT/h200-scaled-matmul-fp8-even-grid.txt"
