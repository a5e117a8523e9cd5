#!/bin/bash
# Device call Z (2026-11-29 session 5): scaled_matmul replays its launches. GPU tests of fp8 and of replays,
# the fp8 sweep, host overhead (fp8 added), then the final fp16 and bf16 sweeps on the committed table.
export PYTHONPATH=src:. TILELAB_CACHE_DIR="$OUT/cache"
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> "$OUT/times.txt"; }
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 150 python -m pytest tests/gpu/test_hopper_paths_gpu.py \
  tests/gpu/test_matmul_gpu.py -k "fp8 or replay" -q -m gpu -n 16 -p no:cacheprovider \
  > "$OUT/h200-gpu-tests-replays.log" 2>&1; step tests $?
BENCH=(python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5)
timeout 90 "${BENCH[@]}" --op scaled_matmul --dtype float8_e4m3fn \
  --output "$OUT/h200-scaled-matmul-fp8-rounds.json" > /tmp/sweep-fp8.log 2>&1; step fp8 $?
timeout 60 python scripts/h200_overhead.py > "$OUT/h200-overhead-session5.log" 2>&1; step overhead $?
for dt in float16 bfloat16; do
  timeout 100 "${BENCH[@]}" --op matmul --dtype $dt --tune --time-budget 80 \
    --output "$OUT/h200-matmul-$dt-rounds.json" > "/tmp/sweep-$dt.log" 2>&1; step $dt $?
done
cat "$OUT/times.txt"
grep -E "^(FAILED|ERROR)" "$OUT/h200-gpu-tests-replays.log" | cut -c1-300 | head; tail -2 "$OUT/h200-gpu-tests-replays.log"
head -14 "$OUT/h200-overhead-session5.log"
for f in /tmp/sweep-*.log; do echo "== $f"; grep -E "│|geometric" "$f"; tail -2 "$f"; done
