#!/bin/bash
# Device call SSSS (2026-11-29 session 13): the twelfth session's last commits (descriptor row strides, one
# persistent grid for both Gluon kernels) through the Gluon GPU tests; pingpong's smaller tiles at 1000^3;
# a float32 C on pingpong's 5-stage configuration; where batched products stand against torch.
export PYTHONPATH=src:.
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 150 python -m pytest tests/gpu/test_pingpong_gpu.py \
  tests/gpu/test_registers_gpu.py -q -m gpu -n 16 -p no:cacheprovider -rfE > "$OUT/h200-gpu-tests-session13-gluon.log" 2>&1
echo "tests rc=$?"
grep -E "^(FAILED|ERROR)" "$OUT/h200-gpu-tests-session13-gluon.log" | cut -c1-300 | head
grep -v Warning "$OUT/h200-gpu-tests-session13-gluon.log" | grep -E "passed|failed" | cut -c1-200
SMALL="--config 128x64x64-s8 --config 128x64x128-s4 --config 64x128x64-s8 --config 64x64x128-s6 --config 128x128x64-s6"
timeout 60 python scripts/h200_pingpong_probe.py --check $SMALL 2>&1 | grep -v Warning | cut -c1-160 | sort -u > "$OUT/h200-pingpong-check-4.log"
grep -c "relative error" "$OUT/h200-pingpong-check-4.log"; grep -v "e-04\|e-05" "$OUT/h200-pingpong-check-4.log" | head
for dt in float16 bfloat16; do
  timeout 60 python scripts/h200_pingpong_probe.py --rounds 10 --dtype $dt --shape 1000,1000,1000 --shape 1024,1024,1024 \
    --grid sms $SMALL 2>&1 | grep -v Warning | tee -a "$OUT/h200-pingpong-probe-1000.log"
done
timeout 60 python scripts/h200_fp32_output_probe.py --rounds 8 2>&1 | grep -v Warning | tee "$OUT/h200-fp32-output-probe.log"
timeout 120 python scripts/h200_batched_probe.py --rounds 6 2>&1 | grep -v Warning | tee "$OUT/h200-batched-probe.log"
