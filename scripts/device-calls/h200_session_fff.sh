#!/bin/bash
# Device call FFF (2026-11-29 session 8): copies onto 128-byte lines for large misaligned fp16/bf16 operands,
# and line-aligned output rows: where the copy pays, then the GPU tests of the paths they touch.
export PYTHONPATH=src:.
timeout 150 python scripts/h200_row_copy_probe.py --rounds 10 > "$OUT/h200-row-copy-probe.log" 2>&1
echo "probe rc=$?"
cat "$OUT/h200-row-copy-probe.log"
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 300 python -m pytest tests/gpu/test_matmul_gpu.py \
  tests/gpu/test_hopper_paths_gpu.py -q -m gpu -n 16 -p no:cacheprovider -rfE > "$OUT/h200-gpu-tests-row-copies.log" 2>&1
echo "tests rc=$?"
grep -E "^(FAILED|ERROR)" "$OUT/h200-gpu-tests-row-copies.log" | cut -c1-300 | head
grep -v Warning "$OUT/h200-gpu-tests-row-copies.log" | grep -E "passed|failed" | cut -c1-200
