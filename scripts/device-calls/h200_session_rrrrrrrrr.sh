#!/bin/bash
# Device call RRRRRRRRR (thirtieth session): tests/instruments with CUDA present, after the instruments' argument
# checks (the audit's fixes were written and tested without a GPU).
W=/tmp/wr9; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
TILELAB_REQUIRE_GPU=1 timeout 200 python -m pytest -q -n 16 -p no:cacheprovider -rfE -W ignore --timeout 150 \
  tests/instruments > "$W/w/h200-gpu-tests-instruments-session30.log" 2>&1
echo "rc=$?"; grep -E "^FAILED|^ERROR|passed|failed" "$W/w/h200-gpu-tests-instruments-session30.log" | tail -25 | cut -c1-220
tar -C "$W" -czf "$OUT/rrrrrrrrr.tar.gz" w
