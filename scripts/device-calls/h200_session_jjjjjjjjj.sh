#!/bin/bash
# Device call JJJJJJJJJ (twenty-ninth session): the final code's GPU tests for what the session changed: all of
# conv's (every candidate, -mul twins of tap and split tiles included, and the interpreter tests on the GPU), and
# compile_ahead's with the GPU tests that tune.
W=/tmp/wj9; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
start=$SECONDS
TILELAB_REQUIRE_GPU=1 timeout 150 python -m pytest -q -m gpu -n 16 -p no:cacheprovider -rfE -W ignore --maxfail=3 \
  --durations=5 tests/gpu/test_compile_ahead_gpu.py tests/gpu/test_matmul_gpu.py tests/gpu/test_hopper_paths_gpu.py \
  tests/gpu/test_bench_gpu.py -k "compile_ahead or remembered or pretune or between_powers or long_k_with_b or tunable" \
  > "$W/w/h200-gpu-tests-compile-ahead-final.log" 2>&1
echo "tuning tests rc=$? $((SECONDS - start)) s"; grep -E "FAILED|ERROR|passed|failed" "$W/w/h200-gpu-tests-compile-ahead-final.log" | tail -4 | cut -c1-200
tar -C "$W" -czf "$OUT/jjjjjjjjj.tar.gz" w
TILELAB_REQUIRE_GPU=1 timeout 330 python -m pytest -q -n 16 -p no:cacheprovider -rfE -W ignore --maxfail=3 \
  --durations=5 tests/gpu/test_conv_gpu.py tests/interpreter/test_conv_windows_interpreter.py \
  tests/interpreter/test_conv_flat_k_interpreter.py tests/interpreter/test_conv_interpreter.py \
  tests/interpreter/test_conv_split_k_interpreter.py tests/interpreter/test_conv_groups_interpreter.py \
  > "$W/w/h200-gpu-tests-conv-session29-final.log" 2>&1
echo "conv tests rc=$? $((SECONDS - start)) s"; grep -E "FAILED|ERROR|passed|failed" "$W/w/h200-gpu-tests-conv-session29-final.log" | tail -5 | cut -c1-200
tar -C "$W" -czf "$OUT/jjjjjjjjj.tar.gz" w
