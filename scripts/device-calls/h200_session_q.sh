#!/bin/bash
# Device call Q (2026-11-29 session 4): the final code (host-built descriptors, replays through TensorMapCache,
# re-tuned descriptor entries). GPU tests, the fp16 and bf16 sweeps (variants taking turns), host overhead.
export PYTHONPATH=src:. TILELAB_CACHE_DIR="$OUT/cache"
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> "$OUT/times.txt"; }
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 320 python -m pytest tests/gpu -q -m gpu -n 8 \
  -p no:cacheprovider --deselect tests/gpu/test_bench_gpu.py::test_graph_and_events_agree_on_a_large_kernel \
  > "$OUT/h200-gpu-tests-host-descriptors.log" 2>&1; step tests $?
BENCH=(python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5)
for dt in float16 bfloat16; do
  timeout 100 "${BENCH[@]}" --op matmul --dtype $dt --tune --time-budget 80 \
    --output "$OUT/h200-matmul-$dt-rounds.json" > "/tmp/sweep-$dt.log" 2>&1; step $dt $?
done
timeout 50 python scripts/h200_overhead.py > "$OUT/h200-overhead-tensor-map-cache.log" 2>&1; step overhead $?
cat "$OUT/times.txt"
grep -E "^(FAILED|ERROR)" "$OUT/h200-gpu-tests-host-descriptors.log" | cut -c1-300 | head -20
tail -1 "$OUT/h200-gpu-tests-host-descriptors.log"; head -13 "$OUT/h200-overhead-tensor-map-cache.log"
for f in /tmp/sweep-*.log; do echo "== $f"; grep -E "│|geometric" "$f"; tail -2 "$f"; done
