#!/bin/bash
# Device call EEEEEEEE (twenty-sixth session; ran from the branch conv-direct-hints at d9fae93, merged after): the direct kernel's CHANNEL_ALIGN. Run from a
# `git archive` of the branch's head (device-snapshot.tar), with TILELAB_SOURCE_COMMIT set. The probe
# (MobileNetV3's depthwise layers of 72-200 channels, and kernel-bench's ragged 36-channel layer, hinted against
# unhinted), then the grouped layers from the shipped table in fp16 (the ragged depthwise key is the only shipped
# one the hint changes), then the conv GPU tests. Merge only if hinted measures faster.
W=/tmp/wdh; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
timeout 200 python scripts/h200_conv_direct_hints_probe.py > "$W/w/h200-conv-direct-hints-probe.log" 2>&1
echo "probe rc=$?"; grep -E "==|hinted|torch " "$W/w/h200-conv-direct-hints-probe.log" | cut -c1-110
tar -C "$W" -czf "$OUT/direct-hints.tar.gz" w
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
f="$W/w/h200-conv2d_bn_silu-grouped-float16-direct-hints"
TILELAB_CACHE_DIR="$W/w/tuning-cache" timeout 65 $BENCH --op conv2d_bn_silu-grouped --dtype float16 \
  --output "$f.json" > "$f.log" 2>&1
echo "bench rc=$?"; grep -E "x36 |geometric" "$f.log" | cut -c1-130
tar -C "$W" -czf "$OUT/direct-hints.tar.gz" w
TILELAB_REQUIRE_GPU=1 timeout 200 python -m pytest -q -n 16 -p no:cacheprovider -rfE tests/gpu/test_conv_gpu.py \
  tests/interpreter/test_conv_interpreter.py > "$W/w/h200-gpu-tests-conv-direct-hints.log" 2>&1
echo "tests rc=$?"; tail -3 "$W/w/h200-gpu-tests-conv-direct-hints.log" | cut -c1-200
tar -C "$W" -czf "$OUT/direct-hints.tar.gz" w
