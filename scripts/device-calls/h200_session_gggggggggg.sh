#!/bin/bash
# Device call GGGGGGGGGG (thirty-third session): every GPU test but conv's (EEEEEEEEEE ran them) and the fuzz
# tests (EEEEEEEEEE, FFFFFFFFFF), at the session's code: the first GPU run after the thirty-second session's review
# refactors (DDDDDDDDDD's command, plus --ignore of the fuzz file).
W=/tmp/wg10; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
cp -a . "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
TILELAB_REQUIRE_GPU=1 timeout 550 python -m pytest tests/gpu -q -m gpu -n 16 -p no:cacheprovider -rfE -W ignore \
  --timeout 400 --durations=15 --ignore tests/gpu/test_conv_gpu.py --ignore tests/gpu/test_fuzz_gpu.py \
  > "$W/w/h200-gpu-tests-session33.log" 2>&1
echo "tests rc=$?"; grep -v "^\.\|^$" "$W/w/h200-gpu-tests-session33.log" | tail -30 | cut -c1-200
tar -C "$W" -czf "$OUT/gggggggggg.tar.gz" w
