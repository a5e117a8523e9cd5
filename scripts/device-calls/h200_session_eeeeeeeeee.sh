#!/bin/bash
# Device call EEEEEEEEEE (thirty-third session): the new GPU-scale fuzz tests (tests/gpu/test_fuzz_gpu.py, 30
# examples per test), then all of conv's GPU tests (last run in the thirty-first session, VVVVVVVVV's command).
W=/tmp/we10; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
cp -a . "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
TILELAB_FUZZ_EXAMPLES=30 TILELAB_REQUIRE_GPU=1 timeout 270 python -m pytest tests/gpu/test_fuzz_gpu.py -q -n 16 \
  -p no:cacheprovider -rfE -W ignore --hypothesis-show-statistics --durations=10 \
  > "$W/w/h200-gpu-fuzz-session33.log" 2>&1
echo "fuzz rc=$?"; grep -E "FAILED|Error|passed|failed|Falsifying" "$W/w/h200-gpu-fuzz-session33.log" | tail -25 | cut -c1-300
TILELAB_REQUIRE_GPU=1 timeout 300 python -m pytest -q -n 16 -p no:cacheprovider -rfE -W ignore --maxfail=3 \
  --durations=5 tests/gpu/test_conv_gpu.py tests/interpreter/test_conv_windows_interpreter.py \
  tests/interpreter/test_conv_flat_k_interpreter.py tests/interpreter/test_conv_interpreter.py \
  tests/interpreter/test_conv_split_k_interpreter.py tests/interpreter/test_conv_groups_interpreter.py \
  > "$W/w/h200-gpu-tests-conv-session33.log" 2>&1
echo "conv tests rc=$?"; grep -E "FAILED|ERROR|passed|failed" "$W/w/h200-gpu-tests-conv-session33.log" | tail -5 | cut -c1-200
tar -C "$W" -czf "$OUT/eeeeeeeeee.tar.gz" w
