#!/bin/bash
# Device call AA (2026-11-29 session 5): STREAM_K in the persistent kernel. Its GPU tests (and the replay and
# persistent tests around it), then the probe: tuned configs with and without it, in turns with torch.
# The STREAM_K kernel and scripts/h200_stream_k_probe.py were reverted after this call: both are in commit 02258f7.
export PYTHONPATH=src:. TILELAB_CACHE_DIR="$OUT/cache"
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> "$OUT/times.txt"; }
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 200 python -m pytest tests/gpu/test_hopper_paths_gpu.py \
  tests/gpu/test_matmul_gpu.py -k "stream_k or persistent or replay" -q -m gpu -n 16 -p no:cacheprovider \
  > "$OUT/h200-gpu-tests-stream-k.log" 2>&1; step tests $?
timeout 300 python scripts/h200_stream_k_probe.py --rounds 5 > "$OUT/h200-stream-k-probe.log" 2>&1; step probe $?
cat "$OUT/times.txt"
grep -E "^(FAILED|ERROR)" "$OUT/h200-gpu-tests-stream-k.log" | cut -c1-300 | head; tail -2 "$OUT/h200-gpu-tests-stream-k.log"
cat "$OUT/h200-stream-k-probe.log"
