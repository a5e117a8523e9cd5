#!/bin/bash
# Device call UUUUUUUUUU (thirty-sixth session): tilelab.linear copies x and weight onto lines too (its own plan and
# replays). The copies' GPU tests (the linear one new) and linear's GPU tests; then kernel-bench --op linear on
# 1001 input features, fp16.
W=/tmp/wu10; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
cp -a . "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
start=$SECONDS
TILELAB_REQUIRE_GPU=1 timeout 200 python -m pytest -v -m gpu -n 16 -p no:cacheprovider -rfE --tb=short -W ignore \
  tests/gpu/test_line_copies_gpu.py tests/gpu/test_linear_gpu.py > "$W/w/h200-gpu-tests-linear-copies.log" 2>&1
echo "tests rc=$? $((SECONDS - start)) s"; grep -E "^(FAILED|ERROR)|passed|failed" "$W/w/h200-gpu-tests-linear-copies.log" | tail -20 | cut -c1-300
tar -C "$W" -czf "$OUT/uuuuuuuuuu.tar.gz" w
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
f="$W/w/h200-linear-float16-line-copies"
TILELAB_CACHE_DIR="$W/w/tuning-cache" timeout 80 $BENCH --op linear --dtype float16 --time-budget 60 \
  --shape 4096 1003 1001 --shape 4096 4096 1001 --shape 1500 1500 1500 --output "$f.json" > "$f.txt" 2>&1
echo "linear rc=$? $((SECONDS - start)) s"; grep -E "x|geometric" "$f.txt" | cut -c1-160
ls "$W/w/tuning-cache" 2>/dev/null && echo "the cache was written: something was tuned" || echo "nothing reached the cache"
tar -C "$W" -czf "$OUT/uuuuuuuuuu.tar.gz" w
