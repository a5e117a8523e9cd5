#!/bin/bash
# Device call BBBBB (2026-11-30 session 14): the batched GPU tests with the new gradient case; does the pingpong
# kernel need rows on 32-byte sectors (the rule's test) or on 128-byte lines? 16 matrices of 1024^3 (rows on
# lines), 1008^3 (2016-byte rows: on sectors, off lines) and 1000^3 (off sectors), every relevant path.
export PYTHONPATH=src:.
W=/tmp/b; mkdir -p "$W"
pack() { tar -C /tmp -czf "$OUT/bbbbb.tar.gz" b; }
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 150 python -m pytest tests/gpu/test_batched_gpu.py \
  -q -m gpu -n 16 -p no:cacheprovider -rfE > "$W/h200-gpu-tests-session14-batched-gradients.log" 2>&1
echo "tests rc=$?"; grep -v Warning "$W/h200-gpu-tests-session14-batched-gradients.log" | grep -E "passed|failed|^FAILED"
pack
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
timeout 120 $BENCH --op bmm --dtype float16 --tune --time-budget 90 \
  --variants torch,tilelab,tilelab-descriptor,tilelab-persistent,tilelab-pingpong \
  --shape 16 1024 1024 1024 --shape 16 1008 1008 1008 --shape 16 1000 1000 1000 \
  --output "$W/h200-bmm-float16-row-starts.json" 2>&1 | grep -v Warning | tee "$W/h200-bmm-float16-row-starts.txt" \
  | grep -E "x.*float|geometric"
pack
