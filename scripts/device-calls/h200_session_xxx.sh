#!/bin/bash
# Device call XXX (2026-11-29 session 10): tilelab.to_aligned / empty_aligned, the caller's side of row
# alignment: its GPU tests, then kernel-bench with torch and tilelab on the same line-aligned copies of A and B
# (copied once, not timed) at widths whose rows start off 32-byte sectors as allocated.
export PYTHONPATH=src:.
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 60 python -m pytest tests/gpu/test_matmul_gpu.py \
  -q -m gpu -n 4 -p no:cacheprovider -rfE -k "aligned_inputs" > "$OUT/h200-gpu-tests-aligned-inputs.log" 2>&1
echo "tests rc=$?"; grep -v Warning "$OUT/h200-gpu-tests-aligned-inputs.log" | grep -E "passed|failed|FAILED|ERROR" | cut -c1-200
BENCH=(python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5)
for dt in float16 bfloat16; do
  timeout 75 "${BENCH[@]}" --op matmul --dtype $dt --variants torch,tilelab,tilelab-aligned,torch-aligned \
    --shape 1000 1000 1000 --shape 3000 3000 3000 --shape 5000 5000 5000 \
    --output "$OUT/h200-matmul-$dt-aligned-inputs.json" > "/tmp/aligned-$dt.log" 2>&1
  echo "$dt rc=$?"; grep -E "│|geometric" "/tmp/aligned-$dt.log" | cut -c1-150
done
