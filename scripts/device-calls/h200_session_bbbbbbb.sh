#!/bin/bash
# Device call BBBBBBB (2026-11-30, session 21): tilelab.linear with the epilogue in the split-K and pingpong
# kernels, and conv2d_bn_silu finishing its tiles half at a time. Their GPU tests and the matmul's replay and
# graph tests (plain split-K and pingpong replays now pass the epilogue's defaults), then kernel-bench for
# linear (fp16, bf16) and conv2d_bn_silu (fp16, fp32) with the shipped tuning.
export PYTHONPATH=src:.
W=/tmp/w; mkdir -p "$W"
pack() { tar -C /tmp -czf "$OUT/bbbbbbb.tar.gz" w; }
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 250 python -m pytest -q -m gpu -n 16 \
  -p no:cacheprovider -rfE --durations=8 tests/gpu/test_linear_gpu.py tests/gpu/test_pingpong_gpu.py \
  tests/gpu/test_conv_gpu.py tests/gpu/test_matmul_gpu.py tests/gpu/test_hopper_paths_gpu.py tests/gpu/test_batched_gpu.py \
  -k "linear or pingpong or conv or ((replay or graph) and not tall_long_k)" \
  2>&1 | grep -v "PytestBenchmarkWarning\|^  warner(" > "$W/h200-gpu-tests-epilogues.log"
echo "tests rc=${PIPESTATUS[0]}"; grep -E "^(FAILED|ERROR)|passed|failed" "$W/h200-gpu-tests-epilogues.log" | cut -c1-300 | tail -12
pack
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for dtype in float16 bfloat16; do
  timeout 100 $BENCH --op linear --dtype $dtype --output "$W/h200-linear-$dtype.json" > "$W/h200-linear-$dtype.log" 2>&1
  echo "bench linear $dtype rc=$?"; tail -13 "$W/h200-linear-$dtype.log" | cut -c1-120
  pack
done
for dtype in float16 float32; do
  timeout 60 $BENCH --op conv2d_bn_silu --dtype $dtype --output "$W/h200-conv2d_bn_silu-$dtype-halves.json" \
    > "$W/h200-conv2d_bn_silu-$dtype-halves.log" 2>&1
  echo "bench conv $dtype rc=$?"; tail -17 "$W/h200-conv2d_bn_silu-$dtype-halves.log" | cut -c1-120
  pack
done
