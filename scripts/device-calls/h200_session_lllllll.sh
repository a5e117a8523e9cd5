#!/bin/bash
# Device call LLLLLLL (2026-11-30, session 23): the course's Triton exercises 18-20 (reference solutions) and the
# hypothesis fuzz tests on the GPU, where they had only run on the interpreter; then the row kernels' bf16 and
# fp32 default sweeps with `row_warps` (the docs still quote bf16/fp32 from before it).
export PYTHONPATH=src:.
W=/tmp/w23l; rm -rf "$W"; mkdir -p "$W/w"
L="$W/w/h200-course-and-fuzz-session23.log"
for ex in triton_softmax_rows triton_split_k triton_persistent triton_matmul; do
  echo "== python -m learning.check $ex --solution" >> "$L"
  timeout 120 python -m learning.check $ex --solution >> "$L" 2>&1
  echo "check $ex rc=$?" | tee -a "$L"
done
echo "== pytest tests/interpreter/test_fuzz_interpreter.py" >> "$L"
TILELAB_REQUIRE_GPU=1 timeout 200 python -m pytest tests/interpreter/test_fuzz_interpreter.py -v -n 8 \
  -p no:cacheprovider -rfE --durations=8 >> "$L" 2>&1
echo "fuzz rc=$?"; tail -22 "$L" | cut -c1-160
tar -C "$W" -czf "$OUT/lllllll.tar.gz" w
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for dtype in bfloat16 float32; do
  for op in softmax rmsnorm; do
    f="$W/w/h200-$op-$dtype-row-warps"
    timeout 45 $BENCH --op $op --dtype $dtype --output "$f.json" > "$f.log" 2>&1
    echo "bench $op $dtype rc=$?"; tail -11 "$f.log" | cut -c1-120
    tar -C "$W" -czf "$OUT/lllllll.tar.gz" w
  done
done
