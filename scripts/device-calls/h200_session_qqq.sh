#!/bin/bash
# Device call QQQ (2026-11-29 session 10): tf32 with B rounded in registers as the registers path's default
# (call PPP's probe): its GPU tests, kernel-bench at the tf32 shapes of record, and the host overhead at
# 127x255x65 with the final code.
export PYTHONPATH=src:.
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 120 python -m pytest tests/gpu/test_registers_gpu.py \
  -q -m gpu -n 8 -p no:cacheprovider -rfE > "$OUT/h200-gpu-tests-tf32-rounded.log" 2>&1
echo "tests rc=$?"
grep -E "^(FAILED|ERROR)" "$OUT/h200-gpu-tests-tf32-rounded.log" | cut -c1-300 | head
grep -v Warning "$OUT/h200-gpu-tests-tf32-rounded.log" | grep -E "passed|failed" | cut -c1-200
BENCH=(python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5)
timeout 120 "${BENCH[@]}" --op matmul --dtype float32 --precision tf32 --tune --torch-kernels \
  --shape 4096 4096 4096 --shape 8192 8192 8192 --output "$OUT/h200-matmul-float32-tf32-rounded.json" \
  > /tmp/tf32.log 2>&1
echo "tf32 rc=$?"
timeout 120 "${BENCH[@]}" --op matmul --dtype float32 --precision tf32 --torch-kernels \
  --variants tilelab,tilelab-registers,tilelab-persistent --shape 512 4096 4096 --shape 1000 1000 1000 \
  --shape 1024 1024 1024 --shape 2048 2048 2048 --shape 4096 11008 4096 --shape 8192 8192 1024 \
  --output "$OUT/h200-matmul-float32-tf32-sizes-rounded.json" > /tmp/tf32-sizes.log 2>&1
echo "tf32 sizes rc=$?"
for f in /tmp/tf32.log /tmp/tf32-sizes.log; do echo "== $f"; grep -E "│|geometric" "$f" | cut -c1-170; tail -1 "$f"; done
timeout 90 python scripts/h200_overhead.py > "$OUT/h200-overhead-session10.log" 2>&1
echo "overhead rc=$?"
head -40 "$OUT/h200-overhead-session10.log" | cut -c1-160
