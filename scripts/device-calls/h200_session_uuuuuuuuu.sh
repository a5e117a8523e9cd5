#!/bin/bash
# Device call UUUUUUUUU (thirty-first session): every GPU test but conv's at the current code, the first whole run
# since the thirtieth session's contract changes (MMMMMMMMM ran before them; NNNNNNNNN only their subset).
W=/tmp/wu9; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
cp -a . "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
TILELAB_REQUIRE_GPU=1 timeout 550 python -m pytest tests/gpu -q -m gpu -n 16 -p no:cacheprovider -rfE -W ignore \
  --timeout 400 --durations=15 --ignore tests/gpu/test_conv_gpu.py > "$W/w/h200-gpu-tests-session31.log" 2>&1
echo "tests rc=$?"; grep -v "^\.\|^$" "$W/w/h200-gpu-tests-session31.log" | tail -30 | cut -c1-200
tar -C "$W" -czf "$OUT/uuuuuuuuu.tar.gz" w
