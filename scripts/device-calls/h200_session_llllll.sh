#!/bin/bash
# Device call LLLLLL (2026-11-30, session 18): the stream-K kernel (matmul_stream_k.py), its GPU tests, then
# its candidates at the shapes whose tiles fill the SMs badly, in turns with torch and the default.
export PYTHONPATH=src:.
W=/tmp/w; mkdir -p "$W"
TILELAB_REQUIRE_GPU=1 timeout 150 python -m pytest tests/gpu/test_hopper_paths_gpu.py -q -m gpu -n 16 \
  -p no:cacheprovider -rfE -k stream_k 2>&1 | grep -v "PytestBenchmarkWarning\|^  warner(" > "$W/h200-gpu-tests-stream-k.log"
echo "tests rc=${PIPESTATUS[0]}"; grep -E "^(FAILED|ERROR)|passed|failed" "$W/h200-gpu-tests-stream-k.log" | cut -c1-250 | tail -8
tar -C /tmp -czf "$OUT/llllll.tar.gz" w
timeout 240 python scripts/h200_stream_k_probe.py --rounds 10 > "$W/h200-stream-k-probe.log" 2>&1
echo "probe rc=$?"; cut -c1-150 "$W/h200-stream-k-probe.log"
tar -C /tmp -czf "$OUT/llllll.tar.gz" w
