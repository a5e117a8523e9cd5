#!/bin/bash
# Device call DDDDDDD (2026-11-30, session 21): GELU's erf by Abramowitz and Stegun's polynomial instead of
# libdevice's erff (CCCCCCC: 212 -> 469 us on the pingpong kernel at 8192x8192x1024). The probe again, then
# kernel-bench for linear (fp16, bf16), then linear's GPU tests (every path, every activation).
export PYTHONPATH=src:.
W=/tmp/w; mkdir -p "$W"
pack() { tar -C /tmp -czf "$OUT/ddddddd.tar.gz" w; }
timeout 60 python scripts/h200_linear_epilogue_probe.py > "$W/h200-linear-epilogue-probe-polynomial.log" 2>&1
echo "probe rc=$?"; cut -c1-90 "$W/h200-linear-epilogue-probe-polynomial.log"
pack
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for dtype in float16 bfloat16; do
  timeout 70 $BENCH --op linear --dtype $dtype --output "$W/h200-linear-$dtype.json" > "$W/h200-linear-$dtype.log" 2>&1
  echo "bench linear $dtype rc=$?"; tail -13 "$W/h200-linear-$dtype.log" | cut -c1-120
  pack
done
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 170 python -m pytest -q -m gpu -n 16 \
  -p no:cacheprovider -rfE --durations=5 tests/gpu/test_linear_gpu.py \
  2>&1 | grep -v "PytestBenchmarkWarning\|^  warner(" > "$W/h200-gpu-tests-linear-polynomial-gelu.log"
echo "tests rc=${PIPESTATUS[0]}"; grep -E "^(FAILED|ERROR)|passed|failed" "$W/h200-gpu-tests-linear-polynomial-gelu.log" | cut -c1-300 | tail -12
pack
