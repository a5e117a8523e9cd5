#!/bin/bash
# Device call ZZZZZZZZ (twenty-eighth session): the test YYYYYYYY failed (an empty convolution: flat_k_fits divided by
# zero input channels, fixed), and the other conv tests of that run that call the tuner with unusual channels.
W=/tmp/wzz; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
TILELAB_REQUIRE_GPU=1 timeout 200 python -m pytest -q -n 16 -p no:cacheprovider -rfE -W ignore \
  tests/interpreter/test_conv_interpreter.py tests/unit/test_conv_planning.py -k "empty or flat or padding or optional" \
  > "$W/w/h200-gpu-tests-conv-empty.log" 2>&1
echo "tests rc=$?"; grep -E "FAILED|ERROR|passed|failed|^E " "$W/w/h200-gpu-tests-conv-empty.log" | head -20 | cut -c1-250
tar -C "$W" -czf "$OUT/zzzzzzzz.tar.gz" w
