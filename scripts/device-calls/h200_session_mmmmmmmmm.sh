#!/bin/bash
# Device call MMMMMMMMM (thirtieth session): every GPU test but conv's (the twenty-ninth session ran those at this
# library code, JJJJJJJJJ), the first such run since the twenty-seventh session's (QQQQQQQQ, which its 480 s
# stopped ~11 tests short), now with a per-test timeout so a slow test is named instead of cut off.
W=/tmp/wm9; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
TILELAB_REQUIRE_GPU=1 timeout 560 python -m pytest tests/gpu -q -m gpu -n 16 -p no:cacheprovider -rfE -W ignore \
  --timeout 400 --durations=15 --ignore tests/gpu/test_conv_gpu.py > "$W/w/h200-gpu-tests-session30.log" 2>&1
echo "tests rc=$?"; grep -v "^\.\|^$" "$W/w/h200-gpu-tests-session30.log" | tail -30 | cut -c1-200
tar -C "$W" -czf "$OUT/mmmmmmmmm.tar.gz" w
