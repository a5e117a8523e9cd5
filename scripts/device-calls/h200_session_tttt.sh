#!/bin/bash
# Device call TTTT (2026-11-29 session 13): batches described once in 3-D on the host, the persistent kernel
# walking every matrix's tiles as one list, batches planned by their whole work and tuned under their own key.
# The GPU tests of the changed kernels (descriptor, persistent, split-K, fp8's shared store) and the new
# batched tests; then the batched probe of call SSSS again.
export PYTHONPATH=src:.
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 420 python -m pytest tests/gpu/test_batched_gpu.py \
  tests/gpu/test_matmul_gpu.py tests/gpu/test_hopper_paths_gpu.py -q -m gpu -n 16 -p no:cacheprovider -rfE \
  > "$OUT/h200-gpu-tests-session13-batched.log" 2>&1
echo "tests rc=$?"
grep -E "^(FAILED|ERROR)" "$OUT/h200-gpu-tests-session13-batched.log" | cut -c1-300 | head -20
grep -v Warning "$OUT/h200-gpu-tests-session13-batched.log" | grep -E "passed|failed" | cut -c1-200
timeout 150 python scripts/h200_batched_probe.py --rounds 6 2>&1 | grep -v Warning | tee "$OUT/h200-batched-probe-2.log"
