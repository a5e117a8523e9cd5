#!/bin/bash
# Device call YYYYYY (2026-11-30, session 20), the session's last 4 device-minutes: the row kernels' and
# linear's GPU tests, the matmul's replay and graph tests (the epilogue's trailing parameters changed what a
# replay passes), then kernel-bench for softmax and rmsnorm in float16. Timeouts keep it inside the budget.
export PYTHONPATH=src:.
W=/tmp/w; mkdir -p "$W"
pack() { tar -C /tmp -czf "$OUT/yyyyyy.tar.gz" w; }
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 125 python -m pytest -q -m gpu -n 16 \
  -p no:cacheprovider -rfE tests/gpu/test_rows_gpu.py tests/gpu/test_linear_gpu.py tests/gpu/test_matmul_gpu.py \
  tests/gpu/test_hopper_paths_gpu.py -k "rows or linear or replay or graph" \
  2>&1 | grep -v "PytestBenchmarkWarning\|^  warner(" > "$W/h200-gpu-tests-session20.log"
echo "tests rc=${PIPESTATUS[0]}"; grep -E "^(FAILED|ERROR)|passed|failed" "$W/h200-gpu-tests-session20.log" | cut -c1-300 | tail -10
pack
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for op in softmax rmsnorm; do
  timeout 32 $BENCH --op $op --dtype float16 --output "$W/h200-$op-float16.json" > "$W/h200-$op-float16.log" 2>&1
  echo "bench $op rc=$?"; tail -14 "$W/h200-$op-float16.log" | cut -c1-120
  pack
done
