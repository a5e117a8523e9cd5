#!/bin/bash
# Device call AAAAAAA (2026-11-30, session 21): the row kernels with several rows per program and the ALIGN
# hint. Their GPU tests (and the interpreter's row tests, which run on the GPU when there is one), the probe of
# rows per program, warps and ALIGN (scripts/h200_rows_probe.py), then kernel-bench for softmax and rmsnorm
# in float16 with the committed rule.
export PYTHONPATH=src:.
W=/tmp/w; mkdir -p "$W"
pack() { tar -C /tmp -czf "$OUT/aaaaaaa.tar.gz" w; }
TILELAB_REQUIRE_GPU=1 timeout 100 python -m pytest -q -n 16 -p no:cacheprovider -rfE tests/gpu/test_rows_gpu.py \
  tests/interpreter/test_rows_interpreter.py 2>&1 | grep -v "PytestBenchmarkWarning\|^  warner(" > "$W/h200-gpu-tests-rows-per-program.log"
echo "tests rc=${PIPESTATUS[0]}"; grep -E "^(FAILED|ERROR)|passed|failed" "$W/h200-gpu-tests-rows-per-program.log" | cut -c1-300 | tail -10
pack
timeout 240 python scripts/h200_rows_probe.py "$W/h200-rows-probe.json" > "$W/h200-rows-probe.log" 2>&1
echo "probe rc=$?"; grep -E "==|default|no align" "$W/h200-rows-probe.log" | cut -c1-110
pack
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for op in softmax rmsnorm; do
  timeout 40 $BENCH --op $op --dtype float16 --output "$W/h200-$op-float16.json" > "$W/h200-$op-float16.log" 2>&1
  echo "bench $op rc=$?"; tail -12 "$W/h200-$op-float16.log" | cut -c1-120
  pack
done
