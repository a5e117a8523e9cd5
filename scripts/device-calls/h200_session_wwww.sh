#!/bin/bash
# Device call WWWW (2026-11-30 session 14): the pingpong kernel on batches (3-D descriptors, one list of tiles).
# GPU tests of the Gluon paths and batches first; then kernel-bench's batched sweeps with the pingpong variant
# beside the persistent kernel, both dtypes, tuned (bf16 batch winners come back in the cache under w/cache in $OUT/wwww.tar.gz).
export PYTHONPATH=src:.
W=/tmp/w; mkdir -p "$W"
pack() { tar -C /tmp -czf "$OUT/wwww.tar.gz" w; }
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 200 python -m pytest tests/gpu/test_pingpong_gpu.py \
  tests/gpu/test_batched_gpu.py tests/gpu/test_registers_gpu.py -q -m gpu -n 16 -p no:cacheprovider -rfE \
  > "$W/h200-gpu-tests-session14-batched-pingpong.log" 2>&1
echo "tests rc=$?"
grep -E "^(FAILED|ERROR)" "$W/h200-gpu-tests-session14-batched-pingpong.log" | cut -c1-300 | head -20
grep -v Warning "$W/h200-gpu-tests-session14-batched-pingpong.log" | grep -E "passed|failed" | cut -c1-200
pack
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for dt in float16 bfloat16; do
  for op in bmm bmm_nt; do
    TILELAB_CACHE_DIR="$W/cache" timeout 110 $BENCH --op $op --dtype $dt --tune --time-budget 75 --torch-kernels \
      --variants torch,tilelab,tilelab-persistent,tilelab-pingpong --output "$W/h200-$op-$dt-pingpong.json" 2>&1 \
      | grep -v Warning | tee "$W/h200-$op-$dt-pingpong.txt" | grep -E "x.*float|geometric|x.*bfloat"
    pack
  done
done
