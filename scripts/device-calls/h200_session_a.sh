#!/bin/bash
# Device call A (2026-11-29 session 2): persistent pretune of the large shapes, full GPU tests, tf32 probe.
export PYTHONPATH=src:.
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/smi.txt" 2>&1
start=$(date +%s)
TILELAB_CACHE_DIR="$OUT/cache" timeout 170 python - > "$OUT/pretune.log" 2>&1 <<'PY'
import json, time, torch, tilelab
t = time.time()
shapes = [(4096, 4096, 4096), (8192, 8192, 8192), (4096, 11008, 4096), (4096, 4096, 11008), (8192, 8192, 1024)]
for s in shapes:
    r = tilelab.pretune([s], (torch.float16, torch.bfloat16), paths=("persistent",))
    print(json.dumps(r), round(time.time() - t, 1), flush=True)
PY
echo "pretune $(( $(date +%s) - start )) s" >> "$OUT/times.txt"
start=$(date +%s)
TILELAB_CACHE_DIR="$OUT/cache-tests" TILELAB_REQUIRE_GPU=1 timeout 260 python -m pytest tests/gpu -q -m gpu -n 8 -p no:cacheprovider > "$OUT/gpu-tests.log" 2>&1
echo "tests rc=$? $(( $(date +%s) - start )) s" >> "$OUT/times.txt"
start=$(date +%s)
timeout 150 python scripts/h200_tf32_probe.py > "$OUT/tf32-probe.log" 2>&1
echo "tf32 rc=$? $(( $(date +%s) - start )) s" >> "$OUT/times.txt"
cat "$OUT/times.txt"; tail -5 "$OUT/gpu-tests.log"; cat "$OUT/pretune.log" | cut -c1-300
