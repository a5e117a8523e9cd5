#!/bin/bash
# Device call YYYYYYYY (twenty-eighth session): conv's GPU tests again, as WWWWWWWW ran them, with a longer timeout
# and the failures named (-rfE), stopping after three.
W=/tmp/wyy; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
TILELAB_REQUIRE_GPU=1 timeout 420 python -m pytest -q -n 16 -p no:cacheprovider -rfE -W ignore --maxfail=3 \
  --durations=5 tests/gpu/test_conv_gpu.py tests/interpreter/test_conv_flat_k_interpreter.py \
  tests/interpreter/test_conv_interpreter.py tests/interpreter/test_conv_split_k_interpreter.py \
  > "$W/w/h200-gpu-tests-conv-session28.log" 2>&1
echo "tests rc=$?"; grep -E "FAILED|ERROR|passed|failed|^E |slowest|^[0-9.]+s " "$W/w/h200-gpu-tests-conv-session28.log" | head -40 | cut -c1-250
tar -C "$W" -czf "$OUT/yyyyyyyy.tar.gz" w
