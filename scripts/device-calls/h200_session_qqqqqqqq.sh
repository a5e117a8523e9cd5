#!/bin/bash
# Device call QQQQQQQQ (twenty-seventh session): every GPU test but conv's (OOOOOOOO ran those at this code), the
# first whole-suite run since the twenty-second session's. Run from a `git archive` of the commit named by
# TILELAB_SOURCE_COMMIT (device-snapshot.tar).
W=/tmp/wqq; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
TILELAB_REQUIRE_GPU=1 timeout 480 python -m pytest tests/gpu -q -m gpu -n 16 -p no:cacheprovider -rfE \
  --durations=8 --ignore tests/gpu/test_conv_gpu.py > "$W/w/h200-gpu-tests-session27.log" 2>&1
echo "tests rc=$?"; tail -14 "$W/w/h200-gpu-tests-session27.log" | cut -c1-200
tar -C "$W" -czf "$OUT/qqqqqqqq.tar.gz" w
