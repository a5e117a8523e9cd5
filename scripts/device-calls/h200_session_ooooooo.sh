#!/bin/bash
# Device call OOOOOOO (2026-11-30, session 23): why ResNeXt's grouped layers (4 and 8 input channels per group)
# ran at 0.07-0.11x torch on the direct kernel: the probe times smaller direct tiles and the implicit GEMM per
# group. Then the grouped layers in fp32, and the dense conv layers in fp32 with the SFU's SiLU.
W=/tmp/w23o; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:. TILELAB_CACHE_DIR="$W/w/tuning-cache"
timeout 200 python scripts/h200_grouped_conv_probe.py > "$W/w/h200-grouped-conv-probe.log" 2>&1
echo "probe rc=$?"; cat "$W/w/h200-grouped-conv-probe.log" | cut -c1-170
tar -C "$W" -czf "$OUT/ooooooo.tar.gz" w
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for run in "conv2d_bn_silu-grouped float32" "conv2d_bn_silu float32"; do
  set -- $run
  f="$W/w/h200-$1-$2-session23"
  timeout 100 $BENCH --op $1 --dtype $2 --output "$f.json" > "$f.log" 2>&1
  echo "bench $1 $2 rc=$?"; tail -16 "$f.log" | cut -c1-130
  tar -C "$W" -czf "$OUT/ooooooo.tar.gz" w
done
