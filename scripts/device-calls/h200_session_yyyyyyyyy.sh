#!/bin/bash
# Device call YYYYYYYYY (thirty-second session): what the thirty-first session changed without running it on the
# GPU. (1) The two-pass softmax's -inf fix (kernels/rows.py): the row tests with CUDA, then the softmax sweeps of
# the default row shapes (1024x128256 takes the two-pass path; 1.33x fp16 before the fix, IIIIIII).
# (2) Exercise 23's checker after XXXXXXXXX's findings (TMA stores write a row's last 16 bytes; coordinates in
# tiles stop the kernel): its tests, the solution through the checker, and the starter as a learner gets it.
W=/tmp/wy9; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
cp -a . "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
TILELAB_REQUIRE_GPU=1 timeout 200 python -m pytest -q -n 16 -p no:cacheprovider -rfEs -W ignore --timeout 150 \
  tests/gpu/test_rows_gpu.py tests/interpreter/test_rows_interpreter.py > "$W/w/h200-gpu-tests-rows-session32.log" 2>&1
echo "rows tests rc=$?"; grep -E "^FAILED|^ERROR|passed|failed" "$W/w/h200-gpu-tests-rows-session32.log" | tail -8 | cut -c1-240
TILELAB_REQUIRE_GPU=1 timeout 150 python -m pytest -q -n 8 -p no:cacheprovider -rfEs -W ignore --timeout 120 \
  tests/learning -k "descriptors or exercise_23" > "$W/w/h200-gpu-tests-learning-descriptors-session32.log" 2>&1
echo "exercise 23 tests rc=$?"; grep -E "^FAILED|^ERROR|^SKIPPED|passed|failed" "$W/w/h200-gpu-tests-learning-descriptors-session32.log" | tail -12 | cut -c1-240
timeout 60 python -m learning.check triton_descriptors --solution > "$W/w/h200-learning-check-triton_descriptors-session32.log" 2>&1
echo "check solution rc=$?"; cut -c1-240 "$W/w/h200-learning-check-triton_descriptors-session32.log"
timeout 60 python -m learning.check triton_descriptors > "$W/w/h200-learning-check-triton_descriptors-starter-session32.log" 2>&1
echo "check starter rc=$?"; head -c 1200 "$W/w/h200-learning-check-triton_descriptors-starter-session32.log"
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for dtype in float16 bfloat16 float32; do
  timeout 150 $BENCH --op softmax --dtype $dtype --output "$W/w/h200-softmax-$dtype-session32.json" \
    > "$W/w/h200-softmax-$dtype-session32.log" 2>&1
  echo "softmax $dtype rc=$?"; tail -14 "$W/w/h200-softmax-$dtype-session32.log"
done
tar -C "$W" -czf "$OUT/yyyyyyyyy.tar.gz" w
