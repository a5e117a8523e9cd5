#!/bin/bash
# Device call HH (2026-11-29 session 6): re-tune the split-K shapes with the two new deep-pipeline candidates,
# the final fp16 and bf16 sweeps on those winners (user cache over the shipped table), then the whole GPU suite.
export PYTHONPATH=src:.
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> "$OUT/times.txt"; }
TILELAB_SHIPPED_TUNING=0 TILELAB_CACHE_DIR="$OUT/cache" timeout 120 python scripts/h200_retune.py \
  128,4096,4096 16,4096,4096 > "$OUT/h200-retune-splitk-deep.log" 2>&1; step retune $?
BENCH=(python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5)
for dt in float16 bfloat16; do
  TILELAB_CACHE_DIR="$OUT/cache" timeout 110 "${BENCH[@]}" --op matmul --dtype $dt --tune --time-budget 85 \
    --output "$OUT/h200-matmul-$dt-rounds.json" > "/tmp/sweep-$dt.log" 2>&1; step $dt $?
done
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 220 python -m pytest tests/gpu -q -m gpu -n 16 \
  -p no:cacheprovider > "$OUT/h200-gpu-tests-session6.log" 2>&1; step tests $?
cat "$OUT/times.txt"; grep -v Warning "$OUT/h200-retune-splitk-deep.log" | cut -c1-300
for f in /tmp/sweep-*.log; do echo "== $f"; grep -E "│|geometric" "$f"; tail -2 "$f"; done
grep -E "^(FAILED|ERROR)" "$OUT/h200-gpu-tests-session6.log" | cut -c1-300 | head; tail -2 "$OUT/h200-gpu-tests-session6.log"
