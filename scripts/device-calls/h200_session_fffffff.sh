#!/bin/bash
# Device call FFFFFFF (2026-11-30, session 22): the read floor under kernel-bench's timing for the skinny default
# shapes (16 and 128 rows of 4096x4096), then the GPU tests of session 21's review mends (split-K replays'
# scratch, the pingpong launch, the row tiles) and linear's per-kernel erf.
export PYTHONPATH=src:.
W=/tmp/w; mkdir -p "$W"
timeout 150 python scripts/h200_stream_floor_probe.py --rounds 5 > "$W/h200-stream-floor-probe.log" 2>&1
echo "probe rc=$?"; cat "$W/h200-stream-floor-probe.log" | cut -c1-130
tar -C /tmp -czf "$OUT/fffffff.tar.gz" w
TILELAB_REQUIRE_GPU=1 timeout 330 python -m pytest -q -m gpu -n 16 -rfE --durations=5 \
  tests/gpu/test_linear_gpu.py tests/gpu/test_pingpong_gpu.py tests/gpu/test_rows_gpu.py \
  > "$W/h200-gpu-tests-session22-mends.log" 2>&1
echo "tests A rc=$?"; tail -12 "$W/h200-gpu-tests-session22-mends.log" | cut -c1-160
tar -C /tmp -czf "$OUT/fffffff.tar.gz" w
TILELAB_REQUIRE_GPU=1 timeout 150 python -m pytest -q -m gpu -n 16 -rfE --durations=5 \
  tests/gpu/test_matmul_gpu.py tests/gpu/test_hopper_paths_gpu.py tests/gpu/test_batched_gpu.py \
  -k "(replay or graph) and not tall_long_k" > "$W/h200-gpu-tests-session22-replays.log" 2>&1
echo "tests B rc=$?"; tail -12 "$W/h200-gpu-tests-session22-replays.log" | cut -c1-160
tar -C /tmp -czf "$OUT/fffffff.tar.gz" w
