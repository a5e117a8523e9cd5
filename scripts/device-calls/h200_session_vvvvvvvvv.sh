#!/bin/bash
# Device call VVVVVVVVV (thirty-first session): all of conv's GPU tests, and its interpreter tests with CUDA tensors,
# at the current code (JJJJJJJJJ ran them before the thirtieth session's contract changes touched conv's config
# and silu checks).
W=/tmp/wv9; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
cp -a . "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
TILELAB_REQUIRE_GPU=1 timeout 400 python -m pytest -q -n 16 -p no:cacheprovider -rfE -W ignore --maxfail=3 \
  --durations=5 tests/gpu/test_conv_gpu.py tests/interpreter/test_conv_windows_interpreter.py \
  tests/interpreter/test_conv_flat_k_interpreter.py tests/interpreter/test_conv_interpreter.py \
  tests/interpreter/test_conv_split_k_interpreter.py tests/interpreter/test_conv_groups_interpreter.py \
  > "$W/w/h200-gpu-tests-conv-session31.log" 2>&1
echo "conv tests rc=$?"; grep -E "FAILED|ERROR|passed|failed" "$W/w/h200-gpu-tests-conv-session31.log" | tail -5 | cut -c1-200
tar -C "$W" -czf "$OUT/vvvvvvvvv.tar.gz" w
