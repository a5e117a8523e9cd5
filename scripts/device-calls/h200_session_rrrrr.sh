#!/bin/bash
# Device call RRRRR (2026-11-30 session 16): A's rows read in classes. Tune the row-class descriptor configs at
# 1000^3, 3000^3 and 5000^3 (fp16, bf16) in kernel-bench against torch; then the GPU tests of the descriptor path.
export PYTHONPATH=src:.
W=/tmp/r; mkdir -p "$W/cache"
pack() { tar -C /tmp -czf "$OUT/rrrrr.tar.gz" r; }
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for dt in float16 bfloat16; do
  TILELAB_CACHE_DIR="$W/cache" timeout 150 $BENCH --op matmul --dtype $dt --tune --time-budget 120 \
    --variants torch,tilelab --shape 1000 1000 1000 --shape 3000 3000 3000 --shape 5000 5000 5000 \
    --output "$W/h200-matmul-$dt-row-classes.json" 2>&1 | grep -v Warning | tee "$W/h200-matmul-$dt-row-classes.txt" \
    | grep -E "x.*float|geometric"
  pack
done
grep -c rowclasses "$W"/cache/*.json
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 230 python -m pytest tests/gpu/test_matmul_gpu.py \
  tests/gpu/test_batched_gpu.py -q -m gpu -n 16 -p no:cacheprovider -rfE 2>&1 \
  | grep -v "PytestBenchmarkWarning\|^  warner(" > "$W/h200-gpu-tests-row-classes.log"
echo "tests rc=${PIPESTATUS[0]}"; grep -E "^(FAILED|ERROR)|passed|failed" "$W/h200-gpu-tests-row-classes.log" | cut -c1-250 | tail -8
pack
