#!/bin/bash
# Device call UUUUUUU (2026-11-30, session 24): split-K with capped registers (the probe), conv fp32's bench
# finished (TTTTTTT's fresh tuning ran out of time after 8 of 10 layers: its cache, device-cache/, carried on),
# and the GPU tests TTTTTTT did not reach (conv's interpreter file on the GPU; matmul and linear's split-K).
W=/tmp/w24u; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
cp -r device-cache "$W/w/tuning-cache"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
timeout 150 python scripts/h200_conv_split_registers_probe.py > "$W/w/h200-conv-split-registers-probe.log" 2>&1
echo "probe rc=$?"; cut -c1-120 "$W/w/h200-conv-split-registers-probe.log"
tar -C "$W" -czf "$OUT/uuuuuuu.tar.gz" w
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
f="$W/w/h200-conv2d_bn_silu-float32-split-k"
TILELAB_SHIPPED_TUNING=0 TILELAB_CACHE_DIR="$W/w/tuning-cache" timeout 100 $BENCH --op conv2d_bn_silu \
  --dtype float32 --output "$f.json" > "$f.log" 2>&1
echo "bench float32 rc=$?"; tail -14 "$f.log" | cut -c1-150
tar -C "$W" -czf "$OUT/uuuuuuu.tar.gz" w
TILELAB_REQUIRE_GPU=1 timeout 150 python -m pytest -q -n 16 -p no:cacheprovider -rfE \
  tests/interpreter/test_conv_interpreter.py tests/gpu/test_conv_gpu.py -k "not split" \
  > "$W/w/h200-gpu-tests-conv-interpreter-file.log" 2>&1
echo "tests rc=$?"; tail -3 "$W/w/h200-gpu-tests-conv-interpreter-file.log" | cut -c1-200
TILELAB_REQUIRE_GPU=1 timeout 120 python -m pytest -q -m gpu -n 16 -p no:cacheprovider -rfE \
  tests/gpu/test_hopper_paths_gpu.py tests/gpu/test_matmul_gpu.py tests/gpu/test_linear_gpu.py -k "split" \
  > "$W/w/h200-gpu-tests-split-k-shared.log" 2>&1
echo "tests rc=$?"; tail -3 "$W/w/h200-gpu-tests-split-k-shared.log" | cut -c1-200
tar -C "$W" -czf "$OUT/uuuuuuu.tar.gz" w
