#!/bin/bash
# Device call O (2026-11-29 session 4): host-built descriptors. The GPU tests, then the fp16 and bf16 sweeps
# with the variants taking turns. At most 8 files come back: the sweep logs stay on the machine.
export PYTHONPATH=src:. TILELAB_CACHE_DIR="$OUT/cache"
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> "$OUT/times.txt"; }
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 220 python -m pytest tests/gpu -q -m gpu -n 8 \
  -p no:cacheprovider --deselect tests/gpu/test_bench_gpu.py::test_graph_and_events_agree_on_a_large_kernel \
  > "$OUT/h200-gpu-tests-host-descriptors.log" 2>&1; step tests $?
BENCH=(python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5)
for dt in float16 bfloat16; do
  timeout 170 "${BENCH[@]}" --op matmul --dtype $dt --tune --time-budget 80 \
    --output "$OUT/h200-matmul-$dt-rounds.json" > "/tmp/sweep-$dt.log" 2>&1; step $dt $?
done
cat "$OUT/times.txt"
grep -E "^(FAILED|ERROR)" "$OUT/h200-gpu-tests-host-descriptors.log" | cut -c1-300 | head -20
tail -1 "$OUT/h200-gpu-tests-host-descriptors.log"
for f in /tmp/sweep-*.log; do echo "== $f"; grep -E "│|geometric" "$f"; tail -2 "$f"; done
