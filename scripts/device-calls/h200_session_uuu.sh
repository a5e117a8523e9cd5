#!/bin/bash
# Device call UUU (2026-11-29 session 10): the bucket's new split-K winner where it was not tuned
# (128x3072x4096, 128x4096x2048), against the old winner, in turns; the same kernel family at 1000^3; then the
# fp16/bf16 sweeps of record once more (call TTT's repeat).
export PYTHONPATH=src:.
timeout 150 python scripts/h200_skinny_stages_probe.py --rounds 10 --shape 128,3072,4096 --shape 128,4096,2048 \
  --shape 1000,1000,1000 --configs 64x128x64-8-4-2 64x64x128-7-4-1 64x64x128-7-4-2 64x64x128-6-4-1 \
  64x128x128-4-4-1 > "$OUT/h200-skinny-stages-probe-2.log" 2>&1
echo "probe rc=$?"; cat "$OUT/h200-skinny-stages-probe-2.log"
BENCH=(python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5)
for dt in float16 bfloat16; do
  timeout 110 "${BENCH[@]}" --op matmul --dtype $dt --tune --time-budget 85 --torch-kernels \
    --output "$OUT/h200-matmul-$dt-rounds-session10-repeat.json" > "/tmp/sweep-$dt.log" 2>&1
  echo "$dt rc=$?"
  grep -E "│|geometric" "/tmp/sweep-$dt.log" | cut -c1-150; tail -1 "/tmp/sweep-$dt.log"
done
