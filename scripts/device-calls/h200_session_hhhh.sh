#!/bin/bash
# Device call HHHH (2026-11-29 session 12): the Gluon ping-pong probe kernel (fp16 at the large default shapes,
# bf16 at two), then the matmul, Hopper-path and registers GPU tests at commit e442146 (the eleventh session's
# last code, not GPU-run then).
export PYTHONPATH=src:.
timeout 140 python scripts/h200_pingpong_probe.py --rounds 10 > "$OUT/h200-pingpong-probe.log" 2>&1
echo "probe fp16 rc=$?"
timeout 70 python scripts/h200_pingpong_probe.py --rounds 10 --dtype bfloat16 --shape 4096,4096,4096 \
  --shape 8192,8192,1024 > "$OUT/h200-pingpong-probe-bfloat16.log" 2>&1
echo "probe bf16 rc=$?"
cat "$OUT/h200-pingpong-probe.log" "$OUT/h200-pingpong-probe-bfloat16.log" | grep -v Warning | cut -c1-220
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 270 python -m pytest tests/gpu/test_matmul_gpu.py \
  tests/gpu/test_hopper_paths_gpu.py tests/gpu/test_registers_gpu.py -q -m gpu -n 16 -p no:cacheprovider -rfE \
  > "$OUT/h200-gpu-tests-session12-start.log" 2>&1
echo "tests rc=$?"
grep -E "^(FAILED|ERROR)" "$OUT/h200-gpu-tests-session12-start.log" | cut -c1-300 | head
grep -v Warning "$OUT/h200-gpu-tests-session12-start.log" | grep -E "passed|failed" | cut -c1-200
