#!/bin/bash
# Device call PPPP (2026-11-29 session 12): call OOOO's one failure (aligned 3000^3 now takes the pingpong kernel,
# whose tiles fill its last wave better: 5 tile-units per SM against 6), and what that does to 3000^3 and 5000^3
# on line-aligned rows (the persistent kernel: 0.77x and 0.87x torch, call LLL).
export PYTHONPATH=src:.
TILELAB_REQUIRE_GPU=1 timeout 60 python -m pytest "tests/gpu/test_matmul_gpu.py::test_aligned_inputs_are_read_as_they_are" \
  -q -m gpu -p no:cacheprovider -rfE > "$OUT/h200-gpu-tests-session12-aligned.log" 2>&1
echo "test rc=$?"
grep -v Warning "$OUT/h200-gpu-tests-session12-aligned.log" | grep -E "passed|failed" | cut -c1-200
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
timeout 150 $BENCH --op matmul --dtype float16 --variants torch,torch-aligned,tilelab-aligned,tilelab-pingpong \
  --shape 3000 3000 3000 --shape 5000 5000 5000 --shape 2600 2600 2600 \
  --output "$OUT/h200-matmul-float16-pingpong-aligned.json" > "$OUT/h200-matmul-float16-pingpong-aligned.txt" 2>&1
echo "bench rc=$?"
tail -12 "$OUT/h200-matmul-float16-pingpong-aligned.txt" | cut -c1-170
