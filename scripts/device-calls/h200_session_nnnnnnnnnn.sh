#!/bin/bash
# Device call NNNNNNNNNN (thirty-fifth session): the conv2d_bn_silu GPU fuzz test after its comparison learned
# batch norm's cancellation (MMMMMMMMMM's fp32 failure), 40 examples per dtype; then issue 5's fp16 and bf16
# default sweeps (WWWWWWWWW's command; none ran since the split of ops/matmul.py) and the host overhead.
W=/tmp/wn10; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
cp -a . "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
start=$SECONDS
TILELAB_FUZZ_EXAMPLES=40 TILELAB_REQUIRE_GPU=1 timeout 200 python -m pytest tests/gpu/test_fuzz_gpu.py -q -n 2 \
  -k conv -p no:cacheprovider -rfE -W ignore --hypothesis-show-statistics --durations=5 \
  > "$W/w/h200-gpu-fuzz-conv-session35.log" 2>&1
echo "fuzz rc=$? $((SECONDS - start)) s"
grep -E "FAILED|Error|passed|failed|Falsifying|%" "$W/w/h200-gpu-fuzz-conv-session35.log" | tail -20 | cut -c1-300
tar -C "$W" -czf "$OUT/nnnnnnnnnn.tar.gz" w
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for dtype in float16 bfloat16; do
  f="$W/w/h200-matmul-$dtype-session35"
  TILELAB_CACHE_DIR="$W/w/tuning-cache" timeout 110 $BENCH --op matmul --dtype $dtype --time-budget 85 \
    --variants torch,tilelab --output "$f.json" > "$f.txt" 2>&1
  echo "matmul $dtype rc=$? $((SECONDS - start)) s"; grep -E "x|geometric" "$f.txt" | cut -c1-110
  tar -C "$W" -czf "$OUT/nnnnnnnnnn.tar.gz" w
done
timeout 60 python scripts/h200_overhead.py --rounds 10 > "$W/w/h200-overhead-session35.log" 2>&1
echo "overhead rc=$? $((SECONDS - start)) s"; tail -6 "$W/w/h200-overhead-session35.log"
ls "$W/w/tuning-cache" 2>/dev/null && echo "the cache was written: something was tuned" || echo "nothing reached the cache"
tar -C "$W" -czf "$OUT/nnnnnnnnnn.tar.gz" w
