#!/bin/bash
# Device call S (2026-11-29 session 4, the last): split-K from K=2048 and a 128x64x128 candidate, so 1024^3
# takes the descriptor path. Re-tune its bucket, the matmul GPU tests, then the final fp16 and bf16 sweeps.
export PYTHONPATH=src:. TILELAB_CACHE_DIR="$OUT/cache"
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> "$OUT/times.txt"; }
TILELAB_SHIPPED_TUNING=0 timeout 60 python scripts/h200_retune.py 1024,1024,1024 \
  > "$OUT/h200-retune-1024.log" 2>&1; step retune $?
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 170 python -m pytest tests/gpu/test_matmul_gpu.py \
  -q -m gpu -n 8 -p no:cacheprovider > "$OUT/h200-gpu-tests-matmul-final.log" 2>&1; step tests $?
BENCH=(python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5)
for dt in float16 bfloat16; do
  timeout 125 "${BENCH[@]}" --op matmul --dtype $dt --tune --time-budget 80 \
    --output "$OUT/h200-matmul-$dt-rounds.json" > "/tmp/sweep-$dt.log" 2>&1; step $dt $?
done
cat "$OUT/times.txt"; cut -c1-400 "$OUT/h200-retune-1024.log"
grep -E "^(FAILED|ERROR)" "$OUT/h200-gpu-tests-matmul-final.log" | cut -c1-300 | head -20
tail -1 "$OUT/h200-gpu-tests-matmul-final.log"
for f in /tmp/sweep-*.log; do echo "== $f"; grep -E "│|geometric" "$f"; tail -2 "$f"; done
