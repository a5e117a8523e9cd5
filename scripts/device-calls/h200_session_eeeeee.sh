#!/bin/bash
# Device call EEEEEE (2026-11-30, session 18): split-K tunes B's rows off sectors under their own key and offers
# 128x128x128 tiles. The split-K GPU tests; tuning of the off-sector long-K shapes (fp16, bf16) to ship; the
# aligned long-K buckets re-tuned without the shipped table (does the new tile win there too?); kernel-bench
# of long K with those winners.
export PYTHONPATH=src:.
W=/tmp/w; mkdir -p "$W"
pack() { tar -C /tmp -czf "$OUT/eeeeee.tar.gz" w; }
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 200 python -m pytest tests/gpu/test_matmul_gpu.py \
  tests/gpu/test_hopper_paths_gpu.py -q -m gpu -n 16 -p no:cacheprovider -rfE -k "split or off_sectors_apart" 2>&1 \
  | grep -v "PytestBenchmarkWarning\|^  warner(" > "$W/h200-gpu-tests-split-k-off-sectors.log"
echo "tests rc=${PIPESTATUS[0]}"; grep -E "^(FAILED|ERROR)|passed|failed" "$W/h200-gpu-tests-split-k-off-sectors.log" | cut -c1-250 | tail -8
pack
mkdir -p "$W/tune-off-sectors" "$W/tune-aligned"
TILELAB_CACHE_DIR="$W/tune-off-sectors" timeout 150 python scripts/h200_retune.py 1000,1000,4000 1000,1000,8000 \
  1000,1000,16000 500,1000,8000 > "$W/h200-retune-long-k-off-sectors.log" 2>&1
echo "retune rc=$?"; cut -c1-300 "$W/h200-retune-long-k-off-sectors.log"
pack
TILELAB_SHIPPED_TUNING=0 TILELAB_CACHE_DIR="$W/tune-aligned" timeout 120 python scripts/h200_long_k_tuning_probe.py \
  --default-only > "$W/h200-long-k-tuning-probe-2.log" 2>&1
echo "aligned probe rc=$?"; grep -A3 "splitk|float16" "$W/h200-long-k-tuning-probe-2.log" | cut -c1-200
pack
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for dtype in float16 bfloat16; do
  TILELAB_CACHE_DIR="$W/tune-off-sectors" timeout 100 $BENCH --op matmul --dtype $dtype --time-budget 50 \
    --variants torch,tilelab --shape 1000 1000 4000 --shape 1000 1000 8000 --shape 1000 1000 16000 \
    --shape 500 1000 8000 --shape 1024 1024 4096 --shape 768 768 16384 \
    --output "$W/h200-matmul-$dtype-long-k-off-sectors.json" > "$W/h200-matmul-$dtype-long-k-off-sectors.txt" 2>&1
  echo "bench $dtype rc=$?"; grep -E "^\| *[0-9]|geometric" "$W/h200-matmul-$dtype-long-k-off-sectors.txt" | cut -c1-160 | head -9
done
pack
