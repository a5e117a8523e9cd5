#!/bin/bash
# Device call DDDDD (2026-11-30 session 14): the tiny shape's new candidate (16x32x128, 2 stages). Its
# neighbours in turns with torch.mm; a re-tune of 127x255x65 with it (shipped table ignored); kernel-bench on
# that shape with the re-tuned choice, fp16 and bf16; the GPU tests of every tunable config.
export PYTHONPATH=src:.
W=/tmp/d; mkdir -p "$W"
pack() { tar -C /tmp -czf "$OUT/ddddd.tar.gz" d; }
timeout 150 python scripts/h200_tiny_floor_probe.py --rounds 8 --no-floor --tile 16x32x128-w4-s2 \
  --tile 16x32x128-w4-s1 --tile 16x32x128-w4-s3 --tile 16x32x128-w2-s2 --tile 16x32x64-w4-s2 \
  --tile 32x32x64-w4-s2 --tile 16x16x128-w4-s2 --tile 32x16x128-w4-s2 --tile 16x64x128-w4-s2 2>&1 \
  | grep -v Warning | tee "$W/h200-tiny-floor-probe-2.log"
pack
TILELAB_SHIPPED_TUNING=0 TILELAB_CACHE_DIR="$W/cache" timeout 120 python scripts/h200_retune.py 127,255,65 2>&1 \
  | grep -v Warning | tee "$W/h200-retune-tiny-session14.log"
pack
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for dt in float16 bfloat16; do
  TILELAB_CACHE_DIR="$W/cache" timeout 60 $BENCH --op matmul --dtype $dt --time-budget 40 --variants torch,tilelab \
    --shape 127 255 65 --output "$W/h200-matmul-$dt-tiny-session14.json" 2>&1 | grep -v Warning \
    | tee "$W/h200-matmul-$dt-tiny-session14.txt" | grep -E "x.*float|geometric"
  pack
done
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 150 python -m pytest tests/gpu/test_matmul_gpu.py \
  -q -m gpu -n 16 -p no:cacheprovider -rfE -k "tunable" > "$W/h200-gpu-tests-session14-tunable.log" 2>&1
echo "tests rc=$?"; grep -v Warning "$W/h200-gpu-tests-session14-tunable.log" | grep -E "passed|failed|^FAILED"
pack
