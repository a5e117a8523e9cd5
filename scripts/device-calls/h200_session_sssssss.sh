#!/bin/bash
# Device call SSSSSSS (2026-11-30, session 24): would split-K help conv2d_bn_silu's long-K layers (fp32 losses)?
# The emulation probe, then the conv GPU tests at the current code (ops/conv's bundle refactor 69f9e2d).
W=/tmp/w24s; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
timeout 300 python scripts/h200_conv_split_probe.py > "$W/w/h200-conv-split-probe.log" 2>&1
echo "probe rc=$?"; cut -c1-150 "$W/w/h200-conv-split-probe.log"
tar -C "$W" -czf "$OUT/sssssss.tar.gz" w
TILELAB_REQUIRE_GPU=1 timeout 200 python -m pytest -q -m gpu -n 16 -p no:cacheprovider -rfE \
  tests/gpu/test_conv_gpu.py > "$W/w/h200-gpu-tests-conv-session24.log" 2>&1
echo "tests rc=$?"; tail -4 "$W/w/h200-gpu-tests-conv-session24.log" | cut -c1-200
tar -C "$W" -czf "$OUT/sssssss.tar.gz" w
