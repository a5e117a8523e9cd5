#!/bin/bash
# Device call BBBBBBBB (2026-11-30, session 25): output_hint (Y_ALIGN) added after ZZZZZZZ/AAAAAAAA. The
# vector-hints probe again (unhinted, x and w hinted as in ZZZZZZZ, all hinted); RegNetX's two grouped layers
# re-tuned from scratch (their keys were tuned without Y_ALIGN) in fp16, bf16, fp32; conv's GPU tests.
W=/tmp/w25b; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
timeout 230 python scripts/h200_conv_vector_hints_probe.py > "$W/w/h200-conv-vector-hints-probe-2.log" 2>&1
echo "probe rc=$?"; grep -E "==|hinted|torch " "$W/w/h200-conv-vector-hints-probe-2.log" | cut -c1-110
tar -C "$W" -czf "$OUT/bbbbbbbb.tar.gz" w
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for dtype in float16 bfloat16 float32; do
  f="$W/w/h200-conv2d_bn_silu-grouped-regnet-$dtype-output-hint"
  TILELAB_SHIPPED_TUNING=0 TILELAB_CACHE_DIR="$W/w/tuning-cache" timeout 60 $BENCH --op conv2d_bn_silu-grouped \
    --dtype $dtype --shape 32 168 28 28 168 3 1 7 --shape 32 408 14 14 408 3 1 17 --output "$f.json" > "$f.log" 2>&1
  echo "bench $dtype rc=$?"; grep -E "x7 |x17 " "$f.log" | cut -c1-130
  tar -C "$W" -czf "$OUT/bbbbbbbb.tar.gz" w
done
TILELAB_REQUIRE_GPU=1 timeout 150 python -m pytest -q -n 16 -p no:cacheprovider -rfE tests/gpu/test_conv_gpu.py \
  tests/interpreter/test_conv_interpreter.py -k "hint or group or every or tuned or replay" \
  > "$W/w/h200-gpu-tests-conv-output-hint.log" 2>&1
echo "tests rc=$?"; tail -3 "$W/w/h200-gpu-tests-conv-output-hint.log" | cut -c1-200
tar -C "$W" -czf "$OUT/bbbbbbbb.tar.gz" w
