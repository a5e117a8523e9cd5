#!/bin/bash
# Device call HHHHHHHHHH (thirty-third session): the GPU-scale fuzz tests, 30 examples per test, with problems up to
# 2**35 products (FFFFFFFFFF's 2**33 stayed below PERSISTENT_MIN_WORK, so the default never took the persistent or
# pingpong kernel for one GEMM).
W=/tmp/wh10; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
cp -a . "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
TILELAB_FUZZ_EXAMPLES=30 TILELAB_REQUIRE_GPU=1 timeout 330 python -m pytest tests/gpu/test_fuzz_gpu.py -q -n 16 \
  -p no:cacheprovider -rfE -W ignore --hypothesis-show-statistics --durations=10 \
  > "$W/w/h200-gpu-fuzz-session33-3.log" 2>&1
echo "fuzz rc=$?"; grep -E "FAILED|Error|passed|failed|Falsifying" "$W/w/h200-gpu-fuzz-session33-3.log" | tail -25 | cut -c1-300
tar -C "$W" -czf "$OUT/hhhhhhhhhh.tar.gz" w
