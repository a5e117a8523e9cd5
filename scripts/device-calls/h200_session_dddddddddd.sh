#!/bin/bash
# Device call DDDDDDDDDD (thirty-second session): every GPU test but conv's at the session's final code (the public
# functions now ask torch.compiler.is_compiling() first, a HopperConfig's split_k picks the split-K path, matmul's
# backward runs the op); the thirty-first session's UUUUUUUUU ran the same command before these changes.
W=/tmp/wd10; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
cp -a . "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
TILELAB_REQUIRE_GPU=1 timeout 520 python -m pytest tests/gpu -q -m gpu -n 16 -p no:cacheprovider -rfE -W ignore \
  --timeout 400 --durations=15 --ignore tests/gpu/test_conv_gpu.py > "$W/w/h200-gpu-tests-session32.log" 2>&1
echo "tests rc=$?"; grep -v "^\.\|^$" "$W/w/h200-gpu-tests-session32.log" | tail -30 | cut -c1-200
tar -C "$W" -czf "$OUT/dddddddddd.tar.gz" w
