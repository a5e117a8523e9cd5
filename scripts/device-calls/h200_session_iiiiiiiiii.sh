#!/bin/bash
# Device call IIIIIIIIII (thirty-fourth session): the GPU-scale fuzz tests after the thirty-third session's last two
# changes (every tensor of an example from one generator, `value_source`; half of the problems large), 30 examples
# per test.
W=/tmp/wi10; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
cp -a . "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
TILELAB_FUZZ_EXAMPLES=30 TILELAB_REQUIRE_GPU=1 timeout 330 python -m pytest tests/gpu/test_fuzz_gpu.py -q -n 16 \
  -p no:cacheprovider -rfE -W ignore --hypothesis-show-statistics --durations=10 \
  > "$W/w/h200-gpu-fuzz-session34.log" 2>&1
echo "fuzz rc=$?"; grep -E "FAILED|Error|passed|failed|Falsifying" "$W/w/h200-gpu-fuzz-session34.log" | tail -25 | cut -c1-300
tar -C "$W" -czf "$OUT/iiiiiiiiii.tar.gz" w
