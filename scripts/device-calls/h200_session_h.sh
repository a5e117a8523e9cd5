#!/bin/bash
# Device call H (2026-11-29 session 3, the last): longer-K-step candidates re-tuned on the mid-sized shapes,
# then the recorded sweeps (fp16, bf16, tf32), the host overhead and the GPU tests, all from the final code.
# At most 8 files come back: the sweep logs stay on the machine.
export PYTHONPATH=src:. TILELAB_CACHE_DIR="$OUT/cache"
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> "$OUT/times.txt"; }
BENCH=(python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --op matmul)
timeout 60 python scripts/h200_overhead.py > "$OUT/h200-overhead.log" 2>&1; step overhead $?
TILELAB_SHIPPED_TUNING=0 timeout 220 python scripts/h200_retune.py 1024,1024,1024 128,4096,4096 2048,2048,2048 \
  1000,1000,1000 > "$OUT/h200-retune.log" 2>&1; step retune $?
for dt in float16 bfloat16; do
  timeout 90 "${BENCH[@]}" --dtype $dt --tune --time-budget 70 --output "$OUT/h200-matmul-$dt.json" \
    > "/tmp/sweep-$dt.log" 2>&1; step $dt $?
done
timeout 70 "${BENCH[@]}" --dtype float32 --precision tf32 --tune --shape 4096 4096 4096 --shape 8192 8192 8192 \
  --output "$OUT/h200-matmul-float32-tf32.json" > /tmp/sweep-tf32.log 2>&1; step tf32 $?
left=$(( 585 - ($(date +%s) - t0) ))
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout $left python -m pytest tests/gpu -q -m gpu -n 8 \
  -p no:cacheprovider --deselect tests/gpu/test_bench_gpu.py::test_graph_and_events_agree_on_a_large_kernel \
  > "$OUT/h200-gpu-tests.log" 2>&1; step tests $?
cat "$OUT/times.txt"; head -4 "$OUT/h200-overhead.log"; cut -c1-200 "$OUT/h200-retune.log"
grep -E "^(FAILED|ERROR)" "$OUT/h200-gpu-tests.log" | head; tail -1 "$OUT/h200-gpu-tests.log"
for f in /tmp/sweep-*.log; do echo "== $f"; grep -E "│|geometric" "$f"; done
