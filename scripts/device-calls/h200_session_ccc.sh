#!/bin/bash
# Device call CCC (2026-11-29 session 8): whether profiling leaves launches slower; the tf32 sweeps with the
# final registers threshold and the kernels torch ran; the fp16/bf16 sweeps of record again, with torch's kernels.
export PYTHONPATH=src:.
timeout 60 python scripts/h200_profiler_overhead.py > "$OUT/h200-profiler-overhead.log" 2>&1
echo "overhead rc=$?"; cat "$OUT/h200-profiler-overhead.log"
BENCH=(python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5)
timeout 120 "${BENCH[@]}" --op matmul --dtype float32 --precision tf32 --tune --torch-kernels \
  --shape 4096 4096 4096 --shape 8192 8192 8192 --output "$OUT/h200-matmul-float32-tf32-registers-repeat.json" \
  > /tmp/tf32.log 2>&1
echo "tf32 rc=$?"
timeout 120 "${BENCH[@]}" --op matmul --dtype float32 --precision tf32 --torch-kernels \
  --variants tilelab,tilelab-registers,tilelab-persistent --shape 512 4096 4096 --shape 1000 1000 1000 \
  --shape 1024 1024 1024 --shape 2048 2048 2048 --shape 4096 11008 4096 --shape 8192 8192 1024 \
  --output "$OUT/h200-matmul-float32-tf32-sizes-final.json" > /tmp/tf32-sizes.log 2>&1
echo "tf32 sizes rc=$?"
for dt in float16 bfloat16; do
  timeout 100 "${BENCH[@]}" --op matmul --dtype $dt --tune --time-budget 85 --torch-kernels \
    --output "$OUT/h200-matmul-$dt-rounds-session8.json" > "/tmp/sweep-$dt.log" 2>&1
  echo "$dt rc=$?"
done
for f in /tmp/tf32.log /tmp/tf32-sizes.log /tmp/sweep-*.log; do echo "== $f"; grep -E "│|geometric" "$f" | cut -c1-160; tail -1 "$f"; done
