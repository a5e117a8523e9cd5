#!/bin/bash
# Device call KKKKKKKKKK (thirty-fourth session), after ops/matmul.py was split into matmul_plan, descriptors and
# bound_launch: conv's GPU tests (EEEEEEEEEE's command; conv replays through bound_launch now), the 127x255x65
# host overhead (replays call bound_launch's functions), then the course's tests with CUDA present (the explain
# walkthroughs import the moved functions).
W=/tmp/wk10; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
cp -a . "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
TILELAB_REQUIRE_GPU=1 timeout 330 python -m pytest -q -n 16 -p no:cacheprovider -rfE -W ignore --maxfail=3 \
  --durations=5 tests/gpu/test_conv_gpu.py tests/interpreter/test_conv_windows_interpreter.py \
  tests/interpreter/test_conv_flat_k_interpreter.py tests/interpreter/test_conv_interpreter.py \
  tests/interpreter/test_conv_split_k_interpreter.py tests/interpreter/test_conv_groups_interpreter.py \
  > "$W/w/h200-gpu-tests-conv-session34.log" 2>&1
echo "conv tests rc=$?"; grep -E "FAILED|ERROR|passed|failed" "$W/w/h200-gpu-tests-conv-session34.log" | tail -5 | cut -c1-200
timeout 90 python scripts/h200_overhead.py --rounds 10 > "$W/w/h200-overhead-session34.log" 2>&1
echo "overhead rc=$?"; tail -12 "$W/w/h200-overhead-session34.log"
timeout 150 python -m pytest -q -n 16 -p no:cacheprovider -rfE -W ignore tests/learning \
  > "$W/w/h200-gpu-tests-learning-session34.log" 2>&1
echo "learning rc=$?"; grep -E "FAILED|ERROR|passed|failed" "$W/w/h200-gpu-tests-learning-session34.log" | tail -5 | cut -c1-200
tar -C "$W" -czf "$OUT/kkkkkkkkkk.tar.gz" w
