#!/bin/bash
# Device call TTTTTTTTTT (thirty-sixth session): the GPU fuzz test of the default matmul path, whose large sides now
# include 1001 and 1500 (rows TMA cannot read, copied onto lines), 40 examples per dtype, first call and replay.
W=/tmp/wt10; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
cp -a . "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
start=$SECONDS
TILELAB_FUZZ_EXAMPLES=40 TILELAB_REQUIRE_GPU=1 timeout 330 python -m pytest tests/gpu/test_fuzz_gpu.py -q -n 3 \
  -k "test_matmul_at_gpu_scale and default" -p no:cacheprovider -rfE -W ignore --hypothesis-show-statistics \
  --durations=5 > "$W/w/h200-gpu-fuzz-line-copies.log" 2>&1
echo "fuzz rc=$? $((SECONDS - start)) s"
grep -E "FAILED|Error|passed|failed|Falsifying|%|copying" "$W/w/h200-gpu-fuzz-line-copies.log" | tail -40 | cut -c1-300
tar -C "$W" -czf "$OUT/tttttttttt.tar.gz" w
