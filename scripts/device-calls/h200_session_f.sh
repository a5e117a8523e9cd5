#!/bin/bash
# Device call F (2026-11-29 session 3): ragged-K probe, bf16 sweep, fp8 tuning sweep, the whole GPU test suite.
export PYTHONPATH=src:. TILELAB_CACHE_DIR="$OUT/cache"
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> "$OUT/times.txt"; }
BENCH=(python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30)
timeout 90 python scripts/h200_ragged_k_probe.py > "$OUT/h200-ragged-k-probe.log" 2>&1; step probe $?
timeout 150 "${BENCH[@]}" --op matmul --dtype bfloat16 --tune --time-budget 120 \
  --output "$OUT/h200-matmul-bfloat16.json" > "$OUT/sweep-bf16.log" 2>&1; step bf16 $?
timeout 180 "${BENCH[@]}" --op scaled_matmul --dtype float8_e4m3fn --tune \
  --output "$OUT/h200-scaled-matmul-fp8.json" > "$OUT/sweep-fp8.log" 2>&1; step fp8 $?
export TILELAB_CACHE_DIR="$OUT/cache-tests" TILELAB_REQUIRE_GPU=1
left=$(( 580 - ($(date +%s) - t0) ))
timeout $left python -m pytest tests/gpu -q -m gpu -n 8 -p no:cacheprovider \
  --deselect tests/gpu/test_bench_gpu.py::test_graph_and_events_agree_on_a_large_kernel > "$OUT/gpu-tests.log" 2>&1
step tests $?
cat "$OUT/times.txt"; cat "$OUT/h200-ragged-k-probe.log"; grep -E "^(FAILED|ERROR)" "$OUT/gpu-tests.log" | head -20
tail -1 "$OUT/gpu-tests.log"; for f in "$OUT"/sweep-*.log; do echo "== $f"; grep -E "│|geometric" "$f"; done
