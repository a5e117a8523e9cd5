#!/bin/bash
# Device call RRRR (2026-11-29 session 12): after the two Gluon kernels' loader moved into
# kernels/gluon_loader.py (shared), their GPU tests, and the pingpong probe (now on the library's kernel) checking
# its configurations against float64.
export PYTHONPATH=src:.
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 150 python -m pytest tests/gpu/test_pingpong_gpu.py \
  tests/gpu/test_registers_gpu.py -q -m gpu -n 16 -p no:cacheprovider -rfE > "$OUT/h200-gpu-tests-session12-loader.log" 2>&1
echo "tests rc=$?"
grep -E "^(FAILED|ERROR)" "$OUT/h200-gpu-tests-session12-loader.log" | cut -c1-300 | head
grep -v Warning "$OUT/h200-gpu-tests-session12-loader.log" | grep -E "passed|failed" | cut -c1-200
timeout 40 python scripts/h200_pingpong_probe.py --check 2>&1 | grep -v Warning | cut -c1-160 | tee "$OUT/h200-pingpong-check-3.log"
