#!/bin/bash
# Device call AAAAAAAAAA (thirty-second session): the session's final code with CUDA present: tests/learning (the
# course's checks and messages changed after two learner walk-throughs), the new tests from mutation testing,
# kernel-doctor's and kernel-inspect's tests, and kernel-doctor's report (its new sm_90 compile probe).
W=/tmp/wa10; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
cp -a . "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
TILELAB_REQUIRE_GPU=1 timeout 330 python -m pytest -q -n 16 -p no:cacheprovider -rfEs -W ignore --timeout 200 \
  tests/learning tests/unit/test_contracts_edges.py tests/unit/test_matmul_planning_edges.py \
  tests/unit/test_reference_itself.py tests/interpreter/test_linear_edges_interpreter.py \
  tests/interpreter/test_pointer_masks_interpreter.py tests/instruments/test_doctor.py \
  tests/instruments/test_inspect_arguments.py > "$W/w/h200-gpu-tests-session32-final.log" 2>&1
echo "tests rc=$?"; grep -E "^FAILED|^ERROR|passed|failed" "$W/w/h200-gpu-tests-session32-final.log" | tail -20 | cut -c1-300
timeout 200 python -m tilelab.doctor > "$W/w/h200-doctor-session32.log" 2>&1
echo "doctor rc=$?"; cat "$W/w/h200-doctor-session32.log"
tar -C "$W" -czf "$OUT/aaaaaaaaaa.tar.gz" w
