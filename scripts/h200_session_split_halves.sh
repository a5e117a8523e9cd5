#!/bin/bash
# Device call for the branch conv-split-half-tiles (not yet run). Two variants of conv split-K, each from its
# own snapshot (make them first: git archive 64bc107 -o snapshot-halves.tar; git archive <this branch's head> -o
# snapshot-halves-order.tar; carry both):
#   halves (64bc107): the last slice sums and stores its tile in two halves of columns (fewer registers: 3
#     programs per SM where 2 fit);
#   halves-order (the next commit): the same, and a tile's slices neighbours along the grid's first axis, so the
#     last slices' sums spread over the launch instead of all coming in the last wave.
# Each re-tunes and times the two layers that split on main (7x7x512, 14x14x256) in fp16 and fp32, against main's
# results/h200-conv2d_bn_silu-<dtype>-split-k.json; then the conv split-K GPU tests.
for variant in halves halves-order; do
  W=/tmp/wsh-$variant; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
  tar -xf snapshot-$variant.tar -C "$W/src" || exit 1
  ( cd "$W/src" && export PYTHONPATH=src:.
    BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
    for dtype in float16 float32; do
      f="$W/w/h200-conv2d_bn_silu-$dtype-split-$variant"
      TILELAB_SHIPPED_TUNING=0 TILELAB_CACHE_DIR="$W/w/tuning-cache" timeout 100 $BENCH --op conv2d_bn_silu \
        --dtype $dtype --shape 32 512 7 7 512 3 1 --shape 32 256 14 14 256 3 1 --output "$f.json" > "$f.log" 2>&1
      echo "$variant bench $dtype rc=$?"; tail -8 "$f.log" | cut -c1-150
    done
    TILELAB_REQUIRE_GPU=1 timeout 90 python -m pytest -q -n 16 -p no:cacheprovider -rfE tests/gpu/test_conv_gpu.py \
      tests/interpreter/test_conv_split_k_interpreter.py -k "split" > "$W/w/h200-gpu-tests-conv-split-$variant.log" 2>&1
    echo "$variant tests rc=$?"; tail -3 "$W/w/h200-gpu-tests-conv-split-$variant.log" | cut -c1-200 )
  tar -C "$W" -czf "$OUT/split-$variant.tar.gz" w
done
