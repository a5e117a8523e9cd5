#!/bin/bash
# Device call G (2026-11-29 session 3): split-K through tensor descriptors (re-tune the split-K shapes with the
# TMA candidates), persistent tiles the candidate list lacks, then the fp16 and bf16 sweeps and the split-K
# GPU tests.
export PYTHONPATH=src:. TILELAB_CACHE_DIR="$OUT/cache"
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> "$OUT/times.txt"; }
BENCH=(python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --op matmul)
TILELAB_SHIPPED_TUNING=0 timeout 240 python scripts/h200_retune.py 128,4096,4096 1024,1024,1024 \
  > "$OUT/retune.log" 2>&1; step retune $?
timeout 90 python scripts/h200_persistent_probe.py > "$OUT/h200-persistent-probe.log" 2>&1; step probe $?
for dt in float16 bfloat16; do
  timeout 100 "${BENCH[@]}" --dtype $dt --tune --time-budget 80 --output "$OUT/h200-matmul-$dt.json" \
    > "$OUT/sweep-$dt.log" 2>&1; step $dt $?
done
TILELAB_CACHE_DIR="$OUT/cache-tests" TILELAB_REQUIRE_GPU=1 timeout 150 python -m pytest tests/gpu/test_matmul_gpu.py -q -m gpu -n 8 \
  -p no:cacheprovider -k "split" > "$OUT/gpu-tests.log" 2>&1; step tests $?
rm -rf "$OUT/cache-tests"
cat "$OUT/times.txt"; cut -c1-300 "$OUT/retune.log"; cat "$OUT/h200-persistent-probe.log"; tail -3 "$OUT/gpu-tests.log"
for f in "$OUT"/sweep-*.log; do echo "== $f"; grep -E "│|geometric" "$f"; done
