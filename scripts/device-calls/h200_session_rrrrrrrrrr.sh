#!/bin/bash
# Device call RRRRRRRRRR (thirty-sixth session): operands whose rows TMA cannot read are now copied onto lines
# before large fp16/bf16 products (tilelab.ops.line_copies). Its GPU tests and the matmul GPU tests it could
# touch; then kernel-bench on such shapes, the default against torch and the pointer path (the old default).
W=/tmp/wr10; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
cp -a . "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
start=$SECONDS
TILELAB_REQUIRE_GPU=1 timeout 300 python -m pytest -q -m gpu -n 8 -p no:cacheprovider -rfE -W ignore \
  tests/gpu/test_line_copies_gpu.py tests/gpu/test_matmul_gpu.py tests/gpu/test_hopper_paths_gpu.py \
  tests/gpu/test_batched_gpu.py tests/gpu/test_linear_gpu.py > "$W/w/h200-gpu-tests-line-copies.log" 2>&1
echo "tests rc=$? $((SECONDS - start)) s"; grep -E "FAILED|ERROR|passed|failed" "$W/w/h200-gpu-tests-line-copies.log" | tail -30 | cut -c1-300
tar -C "$W" -czf "$OUT/rrrrrrrrrr.tar.gz" w
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
SHAPES="--shape 1001 1001 1001 --shape 1024 1024 1001 --shape 1500 1500 1500 --shape 2004 2004 2004 --shape 4100 4100 4100 --shape 512 4100 4100 --shape 4096 50257 1024"
for dtype in float16 bfloat16; do
  f="$W/w/h200-matmul-$dtype-line-copies"
  TILELAB_CACHE_DIR="$W/w/tuning-cache" timeout 110 $BENCH --op matmul --dtype $dtype --time-budget 90 $SHAPES \
    --variants torch,tilelab,tilelab-pointer --output "$f.json" > "$f.txt" 2>&1
  echo "matmul $dtype rc=$? $((SECONDS - start)) s"; grep -E "x|geometric" "$f.txt" | cut -c1-140
  tar -C "$W" -czf "$OUT/rrrrrrrrrr.tar.gz" w
done
ls "$W/w/tuning-cache" 2>/dev/null && echo "the cache was written: something was tuned" || echo "nothing reached the cache"
tar -C "$W" -czf "$OUT/rrrrrrrrrr.tar.gz" w
