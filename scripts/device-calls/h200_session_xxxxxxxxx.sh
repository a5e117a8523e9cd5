#!/bin/bash
# Device call XXXXXXXXX (thirty-first session): exercise 23 (workshop I11, tiles by descriptor) on the H200: its
# solution, starter and five wrong answers through the checker with CUDA present (descriptors built on the host,
# real TMA), and the reference test that ties descriptor_fits to the library.
W=/tmp/wx9; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
cp -a . "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
TILELAB_REQUIRE_GPU=1 timeout 150 python -m pytest -q -n 8 -p no:cacheprovider -rfEs -W ignore --timeout 120 \
  tests/learning -k "descriptors or exercise_23" > "$W/w/h200-gpu-tests-learning-descriptors-session31.log" 2>&1
echo "tests rc=$?"; grep -E "^FAILED|^ERROR|passed|failed" "$W/w/h200-gpu-tests-learning-descriptors-session31.log" | tail -12 | cut -c1-240
timeout 60 python -m learning.check triton_descriptors --solution > "$W/w/h200-learning-check-triton_descriptors-session31.log" 2>&1
echo "check rc=$?"; cat "$W/w/h200-learning-check-triton_descriptors-session31.log" | cut -c1-240
tar -C "$W" -czf "$OUT/xxxxxxxxx.tar.gz" w
