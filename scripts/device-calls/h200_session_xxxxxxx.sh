#!/bin/bash
# Device call XXXXXXX (2026-11-30, session 25): the branch conv-split-half-tiles against main, each from its own
# snapshot (device-snapshot.tar = main's head; snapshot-halves-src.tar and snapshot-halves-order-src.tar = src/ of
# 64bc107 and 0b7dda2, laid over main's tree in place of its src/):
# the two layers that split (7x7x512, 14x14x256) in fp16 and fp32, from the shipped table (same configs for all
# three, so the kernels are compared at equal tiles); variants interleaved per dtype. Then matmul's and linear's
# split-K GPU tests, which the twenty-fourth session's runs did not finish.
W=/tmp/w25x; rm -rf "$W"; mkdir -p "$W/w"
for variant in main halves halves-order; do
  mkdir -p "$W/$variant" && tar -xf device-snapshot.tar -C "$W/$variant" || exit 1
  if [ "$variant" != main ]; then
    rm -rf "$W/$variant/src" && tar -xf snapshot-$variant-src.tar -C "$W/$variant" || exit 1
  fi
done
for dtype in float16 float32; do
  for variant in main halves halves-order; do
    ( cd "$W/$variant" && export PYTHONPATH=src:.
      f="$W/w/h200-conv2d_bn_silu-$dtype-split-$variant"
      TILELAB_CACHE_DIR="$W/w/tuning-cache-$variant" timeout 60 python -m tilelab.bench \
        --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5 --op conv2d_bn_silu \
        --dtype $dtype --shape 32 512 7 7 512 3 1 --shape 32 256 14 14 256 3 1 --output "$f.json" > "$f.log" 2>&1
      echo "$variant $dtype rc=$?"; grep -E "512|256" "$f.log" | tail -2 | cut -c1-150 )
  done
done
ls "$W/w"/tuning-cache-* 2>/dev/null && echo "(a key was tuned: the shipped table missed it)"
tar -C "$W" -czf "$OUT/xxxxxxx.tar.gz" w
cd "$W/main" && export PYTHONPATH=src:.
TILELAB_REQUIRE_GPU=1 timeout 330 python -m pytest -q -m gpu -n 16 -p no:cacheprovider -rfE --durations=8 \
  tests/gpu/test_matmul_gpu.py tests/gpu/test_linear_gpu.py -k "split" > "$W/w/h200-gpu-tests-matmul-linear-split-k.log" 2>&1
echo "tests rc=$?"; tail -14 "$W/w/h200-gpu-tests-matmul-linear-split-k.log" | cut -c1-200
tar -C "$W" -czf "$OUT/xxxxxxx.tar.gz" w
