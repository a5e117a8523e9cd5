#!/bin/bash
# Device call B (2026-11-29 session 2): pretune split-K and tf32, the fp16 sweep, then the GPU tests.
export PYTHONPATH=src:. TILELAB_CACHE_DIR="$OUT/cache"
start=$(date +%s)
timeout 120 python - > "$OUT/pretune.log" 2>&1 <<'PY'
import json, time, torch, tilelab
t = time.time()
for shape in [(16, 4096, 4096), (128, 4096, 4096), (1024, 1024, 1024)]:
    print(json.dumps(tilelab.pretune([shape], paths=(None,))), round(time.time() - t, 1), flush=True)
for precision in ("tf32", "tf32x3"):
    r = tilelab.pretune([(4096, 4096, 4096)], (torch.float32,), paths=(None,), precision=precision)
    print(json.dumps(r), round(time.time() - t, 1), flush=True)
PY
echo "pretune rc=$? $(( $(date +%s) - start )) s" >> "$OUT/times.txt"; start=$(date +%s)
timeout 230 python -m tilelab.bench --op matmul --dtype float16 --tune --ceilings results/h200-calibration.json \
  --time-budget 160 --samples 30 --no-progress --output "$OUT/h200-matmul-float16.json" > "$OUT/sweep-fp16.log" 2>&1
echo "fp16 sweep rc=$? $(( $(date +%s) - start )) s" >> "$OUT/times.txt"; start=$(date +%s)
export TILELAB_CACHE_DIR="$OUT/cache-tests" TILELAB_REQUIRE_GPU=1
timeout 40 python -m pytest tests/gpu/test_bench_gpu.py -q -p no:cacheprovider -k graph_and_events > "$OUT/gpu-tests-timing.log" 2>&1
timeout 210 python -m pytest tests/gpu -q -m gpu -n 8 -p no:cacheprovider --deselect tests/gpu/test_bench_gpu.py::test_graph_and_events_agree_on_a_large_kernel > "$OUT/gpu-tests.log" 2>&1
echo "tests rc=$? $(( $(date +%s) - start )) s" >> "$OUT/times.txt"
cat "$OUT/times.txt"; tail -3 "$OUT/gpu-tests-timing.log"; grep -E "^(FAILED|ERROR)" "$OUT/gpu-tests.log" | head -30; tail -2 "$OUT/gpu-tests.log"
grep -E "shape|×|x" "$OUT/sweep-fp16.log" | tail -25
