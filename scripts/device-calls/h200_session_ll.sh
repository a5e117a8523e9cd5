#!/bin/bash
# Device call LL (2026-11-29 session 6): untuned small problems now start from a tile that fills at least half the
# SMs (matmul_hopper.filling_first): the fp8 sweep on small shapes with every candidate, then the fp8 and
# persistent GPU tests.
export PYTHONPATH=src:.
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> "$OUT/times.txt"; }
timeout 200 python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 6 \
  --op scaled_matmul --variants all --shape 128 256 64 --shape 256 512 512 --shape 1024 1024 1024 \
  --shape 2048 2048 2048 --output "$OUT/h200-scaled-matmul-fp8-small.json" > /tmp/fp8-small.log 2>&1; step fp8 $?
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 200 python -m pytest tests/gpu -q -m gpu -n 16 \
  -p no:cacheprovider -k "fp8 or scaled or persistent" -rfE > "$OUT/h200-gpu-tests-filling-first.log" 2>&1
step tests $?
cat "$OUT/times.txt"; grep -E "│|geometric" /tmp/fp8-small.log | cut -c1-250; tail -2 /tmp/fp8-small.log
grep -E "^(FAILED|ERROR)" "$OUT/h200-gpu-tests-filling-first.log" | cut -c1-300 | head
tail -2 "$OUT/h200-gpu-tests-filling-first.log"
