#!/bin/bash
# Device call MMMMM (2026-11-30 session 15): split-K through TMA from 256 rows, with the fp16 winners of LLLLL
# shipped. Split-K, replay and graph GPU tests; kernel-bench at long K over small outputs, fp16 and bf16.
export PYTHONPATH=src:.
W=/tmp/m; mkdir -p "$W"
pack() { tar -C /tmp -czf "$OUT/mmmmm.tar.gz" m; }
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 230 python -m pytest tests/gpu/test_matmul_gpu.py \
  tests/gpu/test_hopper_paths_gpu.py -q -m gpu -n 16 -p no:cacheprovider -rfE \
  -k "tall_long_k or split or graph or replayed" 2>&1 \
  | grep -v "PytestBenchmarkWarning\|^  warner(" > "$W/h200-gpu-tests-split-k-tma.log"
echo "tests rc=${PIPESTATUS[0]}"; grep -E "^(FAILED|ERROR)|passed|failed" "$W/h200-gpu-tests-split-k-tma.log" | cut -c1-250 | tail -8
pack
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for dt in float16 bfloat16; do
  timeout 100 $BENCH --op matmul --dtype $dt --tune --time-budget 85 --variants torch,tilelab,tilelab-descriptor \
    --shape 1000 1000 4000 --shape 1024 1024 4096 --shape 1024 1024 8192 --shape 512 512 8192 \
    --shape 768 768 16384 --shape 512 1024 8192 --shape 256 1024 8192 --shape 256 4096 4096 \
    --output "$W/h200-matmul-$dt-long-k-final.json" 2>&1 | grep -v Warning | tee "$W/h200-matmul-$dt-long-k-final.txt" \
    | grep -E "x.*float|geometric"
  pack
done
