#!/bin/bash
# Device call MMMMMMMMMM (thirty-fourth session): the conv2d_bn_silu GPU fuzz test after LLLLLLLLLL, with four images in
# five holding the filter (a third of fp32's examples were refusals there), 30 examples per dtype.
W=/tmp/wm10; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
cp -a . "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
TILELAB_FUZZ_EXAMPLES=30 TILELAB_REQUIRE_GPU=1 timeout 420 python -m pytest tests/gpu/test_fuzz_gpu.py -q -n 2 \
  -k conv -p no:cacheprovider -rfE -W ignore --hypothesis-show-statistics --durations=5 \
  > "$W/w/h200-gpu-fuzz-conv-session34-2.log" 2>&1
echo "fuzz rc=$?"; grep -E "FAILED|Error|passed|failed|Falsifying|%" "$W/w/h200-gpu-fuzz-conv-session34-2.log" | tail -30 | cut -c1-300
tar -C "$W" -czf "$OUT/mmmmmmmmmm.tar.gz" w
