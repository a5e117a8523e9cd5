#!/bin/bash
# Device call Y (2026-11-29 session 5): the tuner's candidates now take turns there and back, and pretune
# really times the persistent path (call X's re-tune timed nothing). Re-tune the five large buckets on the
# persistent path; fp16/bf16 sweeps on that cache (kernel-bench turns now also go there and back); persistent
# against descriptor at 8192^3 and 4096^3 (10 rounds); the fp8 sweep; the persistent GPU tests.
export PYTHONPATH=src:. TILELAB_CACHE_DIR="$OUT/cache"
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> "$OUT/times.txt"; }
TILELAB_SHIPPED_TUNING=0 timeout 200 python scripts/h200_retune.py --path persistent 4096,4096,4096 8192,8192,8192 \
  4096,11008,4096 4096,4096,11008 8192,8192,1024 > "$OUT/h200-retune-large-turns.log" 2>&1; step retune $?
BENCH=(python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5)
for dt in float16 bfloat16; do
  timeout 100 "${BENCH[@]}" --op matmul --dtype $dt --tune --time-budget 80 \
    --output "$OUT/h200-matmul-$dt-rounds.json" > "/tmp/sweep-$dt.log" 2>&1; step $dt $?
done
timeout 80 python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 10 \
  --op matmul --dtype float16 bfloat16 --variants torch,tilelab,tilelab-descriptor,tilelab-persistent \
  --shape 8192 8192 8192 --shape 4096 4096 4096 --output "$OUT/h200-large-paths.json" > /tmp/sweep-large.log 2>&1
step large $?
timeout 90 "${BENCH[@]}" --op scaled_matmul --dtype float8_e4m3fn \
  --output "$OUT/h200-scaled-matmul-fp8-rounds.json" > /tmp/sweep-fp8.log 2>&1; step fp8 $?
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 120 python -m pytest \
  tests/gpu/test_hopper_paths_gpu.py -k "persistent or fp8" -q -m gpu -n 16 -p no:cacheprovider \
  > "$OUT/h200-gpu-tests-persistent-fp8.log" 2>&1; step tests $?
cat "$OUT/times.txt"; cut -c1-300 "$OUT/h200-retune-large-turns.log"
grep -E "^(FAILED|ERROR)" "$OUT/h200-gpu-tests-persistent-fp8.log" | cut -c1-300 | head; tail -2 "$OUT/h200-gpu-tests-persistent-fp8.log"
for f in /tmp/sweep-*.log; do echo "== $f"; grep -E "│|geometric" "$f"; tail -2 "$f"; done
