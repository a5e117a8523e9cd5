#!/bin/bash
# Device call SSSSS (2026-11-30 session 16): the row-class GPU test (mended), then the fp16 and bf16 default matmul
# sweeps with the row-class winners of call RRRRR shipped.
export PYTHONPATH=src:.
W=/tmp/t; mkdir -p "$W"
pack() { tar -C /tmp -czf "$OUT/sssss.tar.gz" t; }
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 100 python -m pytest tests/gpu/test_matmul_gpu.py -q \
  -m gpu -n 16 -p no:cacheprovider -rfE -k classes 2>&1 | grep -v "PytestBenchmarkWarning\|^  warner(" \
  > "$W/h200-gpu-tests-row-classes-mended.log"
echo "tests rc=${PIPESTATUS[0]}"; grep -E "^(FAILED|ERROR)|passed|failed" "$W/h200-gpu-tests-row-classes-mended.log" | cut -c1-250 | tail -8
pack
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for dt in float16 bfloat16; do
  timeout 110 $BENCH --op matmul --dtype $dt --time-budget 85 --variants torch,tilelab \
    --output "$W/h200-matmul-$dt-row-classes-final.json" 2>&1 | grep -v Warning \
    | tee "$W/h200-matmul-$dt-row-classes-final.txt" | grep -E "x.*float|geometric"
  pack
done
