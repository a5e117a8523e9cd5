#!/bin/bash
# Device call JJ (2026-11-29 session 6): the three large target shapes, default against torch only, 10 rounds
# (an even count: the there-and-back turns cancel a steady clock drift); the split-K GPU tests after the two-wave
# cut of candidates; host overhead.
export PYTHONPATH=src:.
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> "$OUT/times.txt"; }
timeout 200 python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 40 --rounds 10 \
  --op matmul --dtype float16 bfloat16 --variants tilelab --shape 8192 8192 8192 --shape 4096 4096 4096 \
  --shape 4096 11008 4096 --output "$OUT/h200-matmul-large-targets.json" > /tmp/large.log 2>&1; step large $?
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 200 python -m pytest tests/gpu -q -m gpu -n 16 \
  -p no:cacheprovider -k "split or skinny or shapes_paths_dtypes" -rfE > "$OUT/h200-gpu-tests-split-k-waves.log" 2>&1
step tests $?
timeout 60 python scripts/h200_overhead.py > "$OUT/h200-overhead-session6.log" 2>&1; step overhead $?
cat "$OUT/times.txt"; grep -E "│|geometric" /tmp/large.log; tail -2 /tmp/large.log
grep -E "^(FAILED|ERROR)" "$OUT/h200-gpu-tests-split-k-waves.log" | cut -c1-300 | head
tail -2 "$OUT/h200-gpu-tests-split-k-waves.log"; head -14 "$OUT/h200-overhead-session6.log"
