#!/bin/bash
# Device call between RRRRR and SSSSS (2026-11-30 session 16), typed as one command: RRRRR's GPU tests ran out of
# time with 4 failures unnamed; this names them (it stops after 4) with tracebacks. All were the new row-class
# test's unpacking of one recorded launch where every explicit config had recorded its own (mended in SSSSS).
export PYTHONPATH=src:.; mkdir -p /tmp/s
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 300 python -m pytest tests/gpu/test_matmul_gpu.py \
  tests/gpu/test_batched_gpu.py -q -m gpu -n 16 -p no:cacheprovider -rfE --tb=short --maxfail=4 -v 2>&1 \
  | grep -v "PytestBenchmarkWarning\|^  warner(" > /tmp/s/log.txt
tar czf "$OUT/s.tar.gz" -C /tmp s
