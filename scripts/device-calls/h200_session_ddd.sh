#!/bin/bash
# Device call DDD (2026-11-29 session 8), at the session's final library code: the bench and registers GPU tests
# (--torch-kernels now profiles after timing), then the sweeps of record with the kernels torch ran.
export PYTHONPATH=src:.
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 200 python -m pytest tests/gpu/test_bench_gpu.py \
  tests/gpu/test_registers_gpu.py -q -m gpu -n 16 -p no:cacheprovider -rfE > "$OUT/h200-gpu-tests-session8-final.log" 2>&1
echo "tests rc=$?"
grep -E "^(FAILED|ERROR)" "$OUT/h200-gpu-tests-session8-final.log" | cut -c1-300 | head
grep -v Warning "$OUT/h200-gpu-tests-session8-final.log" | grep -E "passed|failed" | cut -c1-200
BENCH=(python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5)
timeout 120 "${BENCH[@]}" --op matmul --dtype float32 --precision tf32 --tune --torch-kernels \
  --shape 4096 4096 4096 --shape 8192 8192 8192 --output "$OUT/h200-matmul-float32-tf32-registers-repeat.json" \
  > /tmp/tf32.log 2>&1
echo "tf32 rc=$?"
timeout 120 "${BENCH[@]}" --op matmul --dtype float32 --precision tf32 --torch-kernels \
  --variants tilelab,tilelab-registers,tilelab-persistent --shape 512 4096 4096 --shape 1000 1000 1000 \
  --shape 1024 1024 1024 --shape 2048 2048 2048 --shape 4096 11008 4096 --shape 8192 8192 1024 \
  --output "$OUT/h200-matmul-float32-tf32-sizes-final.json" > /tmp/tf32-sizes.log 2>&1
echo "tf32 sizes rc=$?"
for dt in float16 bfloat16; do
  timeout 100 "${BENCH[@]}" --op matmul --dtype $dt --tune --time-budget 85 --torch-kernels \
    --output "$OUT/h200-matmul-$dt-rounds-session8.json" > "/tmp/sweep-$dt.log" 2>&1
  echo "$dt rc=$?"
done
for f in /tmp/tf32.log /tmp/tf32-sizes.log /tmp/sweep-*.log; do echo "== $f"; grep -E "│|geometric" "$f" | cut -c1-150; tail -1 "$f"; done
