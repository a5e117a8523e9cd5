#!/bin/bash
# Device call TTTTT (2026-11-30 session 16): the fp16 and bf16 default sweeps again (a repeat of SSSSS), then every
# GPU test at the session's final runtime code.
export PYTHONPATH=src:.
W=/tmp/u; mkdir -p "$W"
pack() { tar -C /tmp -czf "$OUT/ttttt.tar.gz" u; }
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for dt in float16 bfloat16; do
  timeout 110 $BENCH --op matmul --dtype $dt --time-budget 85 --variants torch,tilelab \
    --output "$W/h200-matmul-$dt-row-classes-repeat.json" 2>&1 | grep -v Warning \
    | tee "$W/h200-matmul-$dt-row-classes-repeat.txt" | grep -E "x.*float|geometric"
  pack
done
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 400 python -m pytest tests/gpu -q -m gpu -n 16 \
  -p no:cacheprovider -rfE 2>&1 | grep -v "PytestBenchmarkWarning\|^  warner(" > "$W/h200-gpu-tests-session16-end.log"
echo "tests rc=${PIPESTATUS[0]}"
grep -E "^(FAILED|ERROR)" "$W/h200-gpu-tests-session16-end.log" | cut -c1-300 | head -20
grep -E "passed|failed" "$W/h200-gpu-tests-session16-end.log" | tail -2 | cut -c1-200
pack
