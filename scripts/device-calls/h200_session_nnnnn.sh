#!/bin/bash
# Device call NNNNN (2026-11-30 session 15): which kernels torch runs at long K over small outputs; the bf16
# split-K tuning of the buckets whose fp16 winners LLLLL shipped.
export PYTHONPATH=src:.
W=/tmp/n; mkdir -p "$W/cache"
pack() { tar -C /tmp -czf "$OUT/nnnnn.tar.gz" n; }
timeout 60 python scripts/h200_torch_kernels.py --shape 768 768 16384 --shape 1024 1024 8192 --shape 1024 1024 4096 \
  --shape 1000 1000 4000 --shape 512 512 8192 2>&1 | grep -v Warning | tee "$W/h200-torch-kernels-long-k.log" | cut -c1-200
pack
TILELAB_CACHE_DIR="$W/cache" timeout 200 python - <<'PY' 2>&1 | grep -v Warning | tee "$W/h200-pretune-long-k-bf16.log"
import json, torch
from tilelab.ops.matmul import pretune
shapes = [(1024, 1024, 4096), (1024, 1024, 8192), (768, 768, 16384), (512, 512, 8192), (512, 1024, 8192),
          (256, 1024, 8192), (256, 4096, 4096)]
for record in pretune(shapes, (torch.bfloat16,), paths=(None,)):
    print(json.dumps(record), flush=True)
PY
pack
