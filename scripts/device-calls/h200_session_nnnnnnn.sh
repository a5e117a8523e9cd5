#!/bin/bash
# Device call NNNNNNN (2026-11-30, session 23): grouped and depthwise conv2d_bn_silu (a direct kernel for few
# input channels per group, the implicit GEMM per group otherwise) and conv's SiLU on the SFU: the conv GPU
# tests, the grouped layers tuned and timed in fp16 and bf16 (winners recorded in the tuning cache, to ship),
# the dense layers again in fp16; then the fp8 accumulation probe. Runs from a snapshot of one
# commit (`git archive` as device-snapshot.tar).
W=/tmp/w23n; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
TILELAB_REQUIRE_GPU=1 timeout 170 python -m pytest -q -m gpu -n 16 -p no:cacheprovider -rfE --durations=5 \
  tests/gpu/test_conv_gpu.py > "$W/w/h200-gpu-tests-conv-groups.log" 2>&1
echo "tests rc=$?"; tail -8 "$W/w/h200-gpu-tests-conv-groups.log" | cut -c1-200
tar -C "$W" -czf "$OUT/nnnnnnn.tar.gz" w
export TILELAB_CACHE_DIR="$W/w/tuning-cache"  # the benches' tuning only, to ship
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for run in "conv2d_bn_silu-grouped float16" "conv2d_bn_silu-grouped bfloat16" "conv2d_bn_silu float16"; do
  set -- $run
  f="$W/w/h200-$1-$2-session23"
  timeout 100 $BENCH --op $1 --dtype $2 --output "$f.json" > "$f.log" 2>&1
  echo "bench $1 $2 rc=$?"; tail -16 "$f.log" | cut -c1-130
  tar -C "$W" -czf "$OUT/nnnnnnn.tar.gz" w
done
timeout 60 python scripts/h200_fp8_accumulation_probe.py > "$W/w/h200-fp8-accumulation-probe.log" 2>&1
echo "fp8 probe rc=$?"; tail -30 "$W/w/h200-fp8-accumulation-probe.log" | cut -c1-160
tar -C "$W" -czf "$OUT/nnnnnnn.tar.gz" w
