#!/bin/bash
# Device call VVVVVVV (2026-11-30, session 24): the shipped table with TTTTTTT/UUUUUUU's winners (split-K among
# them): the dense conv layers timed from it (no tuning) in fp32 and fp16; then the split-K GPU tests UUUUUUU ran
# out of time on (matmul, linear, Hopper split-K after the shared helpers) and conv's split tests.
W=/tmp/w24v; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for dtype in float32 float16; do
  f="$W/w/h200-conv2d_bn_silu-$dtype-split-k-shipped"
  TILELAB_CACHE_DIR="$W/w/tuning-cache" timeout 70 $BENCH --op conv2d_bn_silu --dtype $dtype --output "$f.json" \
    > "$f.log" 2>&1
  echo "bench $dtype rc=$?"; tail -14 "$f.log" | cut -c1-150
  tar -C "$W" -czf "$OUT/vvvvvvv.tar.gz" w
done
ls "$W/w/tuning-cache" 2>/dev/null && echo "(a key was tuned: the shipped table missed it)"
TILELAB_REQUIRE_GPU=1 timeout 230 python -m pytest -q -m gpu -n 16 -p no:cacheprovider -rfE \
  tests/gpu/test_hopper_paths_gpu.py tests/gpu/test_matmul_gpu.py tests/gpu/test_linear_gpu.py -k "split" \
  > "$W/w/h200-gpu-tests-split-k-shared.log" 2>&1
echo "tests rc=$?"; tail -3 "$W/w/h200-gpu-tests-split-k-shared.log" | cut -c1-200
tar -C "$W" -czf "$OUT/vvvvvvv.tar.gz" w
TILELAB_REQUIRE_GPU=1 timeout 90 python -m pytest -q -n 16 -p no:cacheprovider -rfE tests/gpu/test_conv_gpu.py \
  tests/interpreter/test_conv_split_k_interpreter.py -k "split or tuned" > "$W/w/h200-gpu-tests-conv-split-k-2.log" 2>&1
echo "tests rc=$?"; tail -3 "$W/w/h200-gpu-tests-conv-split-k-2.log" | cut -c1-200
tar -C "$W" -czf "$OUT/vvvvvvv.tar.gz" w
