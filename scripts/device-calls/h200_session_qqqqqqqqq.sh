#!/bin/bash
# Device call QQQQQQQQQ (thirtieth session): PPPPPPPPP's 24 interpreter-directory failures after their fixes.
W=/tmp/wq9; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
TILELAB_REQUIRE_GPU=1 timeout 150 python -m pytest -q -n 16 -p no:cacheprovider -rfEs -W ignore --timeout 120 \
  tests/interpreter/test_hopper_paths_interpreter.py tests/interpreter/test_linear_interpreter.py \
  tests/interpreter/test_matmul_interpreter.py -k "fp8_scaling_math or split_k_path_on_ragged or split_k_through_tma_on_ragged or pretune_reports or really_splits" \
  > "$W/w/h200-gpu-tests-interpreter-fixes-session30.log" 2>&1
echo "rc=$?"; grep -E "^FAILED|^ERROR|^SKIPPED|passed|failed" "$W/w/h200-gpu-tests-interpreter-fixes-session30.log" | tail -12 | cut -c1-220
tar -C "$W" -czf "$OUT/qqqqqqqqq.tar.gz" w
