#!/bin/bash
# Device call OO (2026-11-29 session 7): tf32 with B's tiles fed to wgmma through registers (no copy of B),
# then the GPU tests of the paths session 6's bind_descriptor_launch refactor touched.
export PYTHONPATH=src:.
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv
timeout 240 python scripts/h200_tf32_register_probe.py --rounds 6 > "$OUT/h200-tf32-register-probe.log" 2>&1
echo "probe rc=$?"
cat "$OUT/h200-tf32-register-probe.log"
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 280 python -m pytest tests/gpu -q -m gpu -n 12 \
  -p no:cacheprovider -rs -k "fp8 or scaled or replay or persistent or descriptor or graph" \
  > "$OUT/h200-gpu-tests-session7-replays.log" 2>&1
echo "tests rc=$?"
grep -v Warning "$OUT/h200-gpu-tests-session7-replays.log" | grep -E "passed|failed|FAILED|Error" | tail -15
