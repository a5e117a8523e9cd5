#!/bin/bash
# Device call C (2026-11-29 session 2): the recorded sweeps (fp16, bf16, fp32, fp8), host overhead, GPU tests.
export PYTHONPATH=src:. TILELAB_CACHE_DIR="$OUT/cache"
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> "$OUT/times.txt"; }
BENCH=(python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress)
for dt in float16 bfloat16; do
  timeout 150 "${BENCH[@]}" --samples 30 --op matmul --dtype $dt --tune --time-budget 120 --output "$OUT/h200-matmul-$dt.json" > "$OUT/sweep-$dt.log" 2>&1
  step "$dt" $?
done
timeout 90 "${BENCH[@]}" --samples 30 --op matmul --dtype float32 --precision tf32 --tune --shape 4096 4096 4096 --shape 8192 8192 8192 \
  --output "$OUT/h200-matmul-float32-tf32.json" > "$OUT/sweep-tf32.log" 2>&1; step tf32 $?
for p in tf32x3 ieee; do
  timeout 60 "${BENCH[@]}" --op matmul --dtype float32 --precision $p --tune --shape 4096 4096 4096 --samples 10 \
    --output "$OUT/h200-matmul-float32-$p.json" > "$OUT/sweep-$p.log" 2>&1; step $p $?
done
timeout 60 "${BENCH[@]}" --op scaled_matmul --dtype float8_e4m3fn --shape 8192 8192 8192 --shape 4096 4096 4096 --warmup 5 \
  --samples 20 --output "$OUT/h200-scaled-matmul-fp8.json" > "$OUT/sweep-fp8.log" 2>&1; step fp8 $?
timeout 40 python scripts/h200_overhead.py > "$OUT/h200-overhead.log" 2>&1; step overhead $?
export TILELAB_CACHE_DIR="$OUT/cache-tests" TILELAB_REQUIRE_GPU=1
left=$(( 575 - ($(date +%s) - t0) ))
timeout $left python -m pytest tests/gpu -q -m gpu -n 8 -p no:cacheprovider \
  --deselect tests/gpu/test_bench_gpu.py::test_graph_and_events_agree_on_a_large_kernel > "$OUT/gpu-tests.log" 2>&1
step tests $?
cat "$OUT/times.txt"; grep -E "^(FAILED|ERROR)" "$OUT/gpu-tests.log" | head; tail -1 "$OUT/gpu-tests.log"
for f in "$OUT"/sweep-*.log; do echo "== $f"; grep -E "│|geometric" "$f"; done; tail -8 "$OUT/h200-overhead.log"
