#!/bin/bash
# Device call PPP (2026-11-29 session 10): the ninth session's final library code on the GPU (the matmul,
# Hopper-path and registers tests), tf32 with B rounded to nearest in registers against truncated by wgmma,
# then the fp16/bf16 sweeps of record.
export PYTHONPATH=src:.
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 240 python -m pytest tests/gpu/test_matmul_gpu.py \
  tests/gpu/test_hopper_paths_gpu.py tests/gpu/test_registers_gpu.py -q -m gpu -n 16 -p no:cacheprovider -rfE \
  > "$OUT/h200-gpu-tests-session10.log" 2>&1
echo "tests rc=$?"
grep -E "^(FAILED|ERROR)" "$OUT/h200-gpu-tests-session10.log" | cut -c1-300 | head
grep -v Warning "$OUT/h200-gpu-tests-session10.log" | grep -E "passed|failed" | cut -c1-200
timeout 110 python scripts/h200_tf32_rounding_probe.py --rounds 10 > "$OUT/h200-tf32-rounding-probe.log" 2>&1
echo "probe rc=$?"
cat "$OUT/h200-tf32-rounding-probe.log"
BENCH=(python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5)
for dt in float16 bfloat16; do
  timeout 105 "${BENCH[@]}" --op matmul --dtype $dt --tune --time-budget 85 --torch-kernels \
    --output "$OUT/h200-matmul-$dt-rounds-session10.json" > "/tmp/sweep-$dt.log" 2>&1
  echo "$dt rc=$?"
  grep -E "│|geometric" "/tmp/sweep-$dt.log" | cut -c1-150; tail -1 "/tmp/sweep-$dt.log"
done
