#!/bin/bash
# Device call ZZ (2026-11-29 session 8): the registers path (tf32 through a Gluon kernel) in the library:
# its GPU tests and the matmul tests it touches, the tf32 sweep of record, and sizes for its threshold.
export PYTHONPATH=src:.
python -c "
import torch, tilelab.ops.matmul as m
for s in [(512, 4096, 4096), (1000, 1000, 1000), (4096, 4096, 4096), (4096, 4096, 4097)]:
    a = torch.empty(s[0], s[2], device='cuda'); b = torch.empty(s[2], s[1], device='cuda')
    d = m.describe_plan(a, b); print(s, d['path'], d.get('programs'), d['b_row_major'])
"
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 240 python -m pytest tests/gpu/test_registers_gpu.py \
  tests/gpu/test_matmul_gpu.py -q -m gpu -n 16 -p no:cacheprovider -rfE > "$OUT/h200-gpu-tests-registers.log" 2>&1
echo "tests rc=$?"
grep -E "^(FAILED|ERROR)" "$OUT/h200-gpu-tests-registers.log" | cut -c1-400 | head -20
grep -v Warning "$OUT/h200-gpu-tests-registers.log" | grep -E "passed|failed" | cut -c1-200
BENCH=(python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5)
timeout 150 "${BENCH[@]}" --op matmul --dtype float32 --precision tf32 --tune --shape 4096 4096 4096 \
  --shape 8192 8192 8192 --output "$OUT/h200-matmul-float32-tf32-registers.json" > /tmp/tf32.log 2>&1
echo "tf32 rc=$?"
timeout 150 "${BENCH[@]}" --op matmul --dtype float32 --precision tf32 \
  --variants tilelab,tilelab-descriptor,tilelab-persistent --shape 512 4096 4096 --shape 1000 1000 1000 \
  --shape 1024 1024 1024 --shape 2048 2048 2048 --shape 4096 11008 4096 --shape 8192 8192 1024 \
  --output "$OUT/h200-matmul-float32-tf32-sizes.json" > /tmp/tf32-sizes.log 2>&1
echo "tf32 sizes rc=$?"
for f in /tmp/tf32.log /tmp/tf32-sizes.log; do echo "== $f"; grep -E "│|geometric" "$f"; tail -2 "$f"; done
