#!/bin/bash
# Device call LLLLL (2026-11-30 session 15): split-K through TMA from 512 rows and 3 slices. GPU tests of split-K
# and replays; split-K's candidates with pointers and with TMA at long K over small outputs; kernel-bench there.
export PYTHONPATH=src:.
W=/tmp/l; mkdir -p "$W"
pack() { tar -C /tmp -czf "$OUT/lllll.tar.gz" l; }
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 150 python -m pytest tests/gpu/test_matmul_gpu.py \
  tests/gpu/test_hopper_paths_gpu.py -q -m gpu -n 16 -p no:cacheprovider -rfE -k "split or replay or graph" 2>&1 \
  | grep -v "PytestBenchmarkWarning\|^  warner(" > "$W/h200-gpu-tests-split-k-tma.log"
echo "tests rc=${PIPESTATUS[0]}"; grep -E "^(FAILED|ERROR)|passed|failed" "$W/h200-gpu-tests-split-k-tma.log" | cut -c1-250 | tail -8
pack
for rule in 0 1000000; do
  mkdir -p "$W/cache-$rule"
  TILELAB_SHIPPED_TUNING=0 TILELAB_CACHE_DIR="$W/cache-$rule" timeout 100 python scripts/h200_long_k_tuning_probe.py \
    --default-only --more --tma-min-m $rule 2>&1 | grep -v Warning > "$W/h200-split-k-tma-min-m-$rule.log"
  grep -A2 -- "->" "$W/h200-split-k-tma-min-m-$rule.log" | grep -v "^--" | cut -c1-160
  pack
done
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for dt in float16 bfloat16; do
  timeout 90 $BENCH --op matmul --dtype $dt --tune --time-budget 75 --variants torch,tilelab,tilelab-descriptor \
    --shape 1000 1000 4000 --shape 1024 1024 4096 --shape 1024 1024 8192 --shape 512 512 8192 \
    --shape 768 768 16384 --shape 512 1024 8192 --shape 256 4096 4096 \
    --output "$W/h200-matmul-$dt-long-k-tma.json" 2>&1 | grep -v Warning | tee "$W/h200-matmul-$dt-long-k-tma.txt" \
    | grep -E "x.*float|geometric"
  pack
done
