#!/bin/bash
# Device call YYYY (2026-11-30 session 14): batched sweeps of record at the new batch rule (pingpong where rows sit
# on sectors, K <= 4096 and tiles outnumber SMs; one program per tile where they do not); the GPU tests of
# batches and both Gluon paths; XXXX's extra batch shapes on the default.
export PYTHONPATH=src:.
W=/tmp/y; mkdir -p "$W"
pack() { tar -C /tmp -czf "$OUT/yyyy.tar.gz" y; }
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 200 python -m pytest tests/gpu/test_pingpong_gpu.py \
  tests/gpu/test_batched_gpu.py tests/gpu/test_registers_gpu.py -q -m gpu -n 16 -p no:cacheprovider -rfE \
  > "$W/h200-gpu-tests-session14-batch-rule.log" 2>&1
echo "tests rc=$?"
grep -E "^(FAILED|ERROR)" "$W/h200-gpu-tests-session14-batch-rule.log" | cut -c1-300 | head -20
grep -v Warning "$W/h200-gpu-tests-session14-batch-rule.log" | grep -E "passed|failed" | cut -c1-200
pack
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for dt in float16 bfloat16; do
  for op in bmm bmm_nt; do
    TILELAB_CACHE_DIR="$W/cache" timeout 100 $BENCH --op $op --dtype $dt --tune --time-budget 70 --torch-kernels \
      --variants torch,tilelab,tilelab-persistent,tilelab-pingpong --output "$W/h200-$op-$dt-session14.json" 2>&1 \
      | grep -v Warning | tee "$W/h200-$op-$dt-session14.txt" | grep -E "x.*float|geometric|x.*bfloat"
    pack
  done
done
TILELAB_CACHE_DIR="$W/cache" timeout 80 $BENCH --op bmm --dtype float16 --time-budget 60 --variants torch,tilelab \
  --shape 64 128 128 128 --shape 128 128 128 128 --shape 256 128 128 128 --shape 8 256 256 256 \
  --shape 16 256 256 256 --shape 4 512 512 512 --shape 2 1024 1024 1024 --shape 2 4096 4096 4096 \
  --shape 2 2048 2048 8192 --shape 8 1024 1024 1000 --shape 8 1024 1000 1024 \
  --output "$W/h200-bmm-float16-session14-shapes.json" 2>&1 | grep -v Warning | tee "$W/h200-bmm-float16-session14-shapes.txt" \
  | grep -E "x.*float|geometric"
pack
