#!/bin/bash
# fp8 tuning run: `--tune` measures every FP8_CANDIDATES config (fast and promoted accumulation) for each
# default scaled_matmul shape, then the sweep times the winners against torch._scaled_mm.
# Run on the H200 from the repository root with $OUT set. The tuning cache ($OUT/cache/tuning-triton*.json,
# per-candidate timings) is what scripts/merge_tuning_cache.py merges into src/tilelab/tuned/h200.json.
export PYTHONPATH=src:. TILELAB_CACHE_DIR="$OUT/cache"
timeout 540 python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 \
  --op scaled_matmul --dtype float8_e4m3fn --tune --output "$OUT/h200-scaled-matmul-fp8-tuned.json" \
  > "$OUT/sweep-fp8-tuned.log" 2>&1
echo "rc=$?"; grep -E "│|geometric" "$OUT/sweep-fp8-tuned.log"; tail -3 "$OUT/sweep-fp8-tuned.log"
