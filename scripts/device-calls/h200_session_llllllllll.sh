#!/bin/bash
# Device call LLLLLLLLLL (thirty-fourth session): the new conv2d_bn_silu GPU fuzz test (a CNN's layers, first call
# and replay into NaN), 30 examples per dtype.
W=/tmp/wl10; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
cp -a . "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
TILELAB_FUZZ_EXAMPLES=30 TILELAB_REQUIRE_GPU=1 timeout 420 python -m pytest tests/gpu/test_fuzz_gpu.py -q -n 2 \
  -k conv -p no:cacheprovider -rfE -W ignore --hypothesis-show-statistics --durations=5 \
  > "$W/w/h200-gpu-fuzz-conv-session34.log" 2>&1
echo "fuzz rc=$?"; grep -E "FAILED|Error|passed|failed|Falsifying|%" "$W/w/h200-gpu-fuzz-conv-session34.log" | tail -30 | cut -c1-300
tar -C "$W" -czf "$OUT/llllllllll.tar.gz" w
