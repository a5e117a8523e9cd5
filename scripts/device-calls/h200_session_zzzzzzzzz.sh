#!/bin/bash
# Device call ZZZZZZZZZ (thirty-second session): tests/learning with CUDA present after the checker learned to
# compile the learner's kernels for sm_90 on the interpreter (on a GPU the launch compiles them; a compile error is
# now reported at the kernel's line), and the three wrong answers that changed or are new, through the checker on
# the GPU as a learner would run them.
W=/tmp/wz9; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
cp -a . "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
TILELAB_REQUIRE_GPU=1 timeout 330 python -m pytest -q -n 16 -p no:cacheprovider -rfEs -W ignore --timeout 200 \
  tests/learning > "$W/w/h200-gpu-tests-learning-session32.log" 2>&1
echo "learning rc=$?"; grep -E "^FAILED|^ERROR|passed|failed" "$W/w/h200-gpu-tests-learning-session32.log" | tail -20 | cut -c1-300
for pair in triton_persistent:triton_persistent_while_break triton_matmul:triton_matmul_blocks_not_constexpr \
            triton_descriptors:triton_descriptors_acc_reset; do
  exercise=${pair%%:*}; wrong=${pair##*:}
  timeout 120 python -m learning.check $exercise --file tests/learning/wrong_answers/$wrong.py --seed 1234 \
    > "$W/w/h200-learning-check-$wrong-session32.log" 2>&1
  echo "check $wrong rc=$?"; cut -c1-400 "$W/w/h200-learning-check-$wrong-session32.log"
done
tar -C "$W" -czf "$OUT/zzzzzzzzz.tar.gz" w
