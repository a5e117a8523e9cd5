#!/bin/bash
# Device call FFFFFFFFFF (thirty-third session): the GPU-scale fuzz tests again, 40 examples per test, after
# EEEEEEEEEE showed their first strategy rarely reached the Hopper kernels (layouts mostly as stored, sides in
# multiples of 8, a third of the problems large, the Gluon group one kernel per dtype).
W=/tmp/wf10; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
cp -a . "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
TILELAB_FUZZ_EXAMPLES=40 TILELAB_REQUIRE_GPU=1 timeout 400 python -m pytest tests/gpu/test_fuzz_gpu.py -q -n 16 \
  -p no:cacheprovider -rfE -W ignore --hypothesis-show-statistics --durations=10 \
  > "$W/w/h200-gpu-fuzz-session33-2.log" 2>&1
echo "fuzz rc=$?"; grep -E "FAILED|Error|passed|failed|Falsifying" "$W/w/h200-gpu-fuzz-session33-2.log" | tail -25 | cut -c1-300
tar -C "$W" -czf "$OUT/ffffffffff.tar.gz" w
