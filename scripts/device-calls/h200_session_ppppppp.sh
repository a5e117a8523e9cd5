#!/bin/bash
# Device call PPPPPPP (2026-11-30, session 23): small groups several to an implicit-GEMM tile (block-diagonal
# weight blocks, `groups_per_tile`): the conv GPU tests, the grouped-conv probe again, and the grouped layers
# tuned and timed in fp16, bf16 and fp32 (winners recorded in the tuning cache, to ship).
W=/tmp/w23p; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
TILELAB_REQUIRE_GPU=1 timeout 170 python -m pytest -q -m gpu -n 16 -p no:cacheprovider -rfE --durations=5 \
  tests/gpu/test_conv_gpu.py > "$W/w/h200-gpu-tests-conv-bundles.log" 2>&1
echo "tests rc=$?"; tail -8 "$W/w/h200-gpu-tests-conv-bundles.log" | cut -c1-200
tar -C "$W" -czf "$OUT/ppppppp.tar.gz" w
export TILELAB_CACHE_DIR="$W/w/tuning-cache"  # the benches' tuning, to ship
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for dtype in float16 bfloat16 float32; do
  f="$W/w/h200-conv2d_bn_silu-grouped-$dtype"
  timeout 100 $BENCH --op conv2d_bn_silu-grouped --dtype $dtype --output "$f.json" > "$f.log" 2>&1
  echo "bench $dtype rc=$?"; tail -16 "$f.log" | cut -c1-130
  tar -C "$W" -czf "$OUT/ppppppp.tar.gz" w
done
TILELAB_CACHE_DIR="$W/probe-cache" timeout 120 python scripts/h200_grouped_conv_probe.py \
  > "$W/w/h200-grouped-conv-probe-bundles.log" 2>&1
echo "probe rc=$?"; cut -c1-150 "$W/w/h200-grouped-conv-probe-bundles.log"
tar -C "$W" -czf "$OUT/ppppppp.tar.gz" w
