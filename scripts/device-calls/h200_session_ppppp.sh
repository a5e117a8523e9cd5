#!/bin/bash
# Device call PPPPP (2026-11-30 session 16): the refactored gradient tests on the GPU, then the row-class probe.
export PYTHONPATH=src:.
mkdir -p /tmp/p
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 200 python -m pytest tests/gpu -q -m gpu -n 16 \
  -p no:cacheprovider -rfE -k gradient 2>&1 | grep -v "PytestBenchmarkWarning\|^  warner(" > /tmp/p/h200-gpu-tests-gradients.log
echo "tests rc=${PIPESTATUS[0]}"
grep -E "^(FAILED|ERROR)" /tmp/p/h200-gpu-tests-gradients.log | cut -c1-300 | head -20
grep -E "passed|failed" /tmp/p/h200-gpu-tests-gradients.log | tail -2 | cut -c1-200
timeout 330 python scripts/h200_row_class_probe.py --rounds 10 --in-kernel 2>&1 | tee /tmp/p/h200-row-class-probe-in-kernel.log
tar czf "$OUT/ppppp.tar.gz" -C /tmp p
