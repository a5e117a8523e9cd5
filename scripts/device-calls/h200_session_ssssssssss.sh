#!/bin/bash
# Device call SSSSSSSSSS (thirty-sixth session): RRRRRRRRRR's GPU tests ran out of time at 83% with three failures
# unnamed. The copies' own tests first (one case's expected copies was wrong: a batch's B of 600 columns is on
# 16 bytes), then the other four files, naming each test as it ends (-v).
W=/tmp/ws10; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
cp -a . "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
start=$SECONDS
TILELAB_REQUIRE_GPU=1 timeout 120 python -m pytest -q -m gpu -n 8 -p no:cacheprovider -rfE --tb=short -W ignore \
  tests/gpu/test_line_copies_gpu.py > "$W/w/h200-gpu-tests-line-copies-own.log" 2>&1
echo "own tests rc=$? $((SECONDS - start)) s"; grep -E "^(FAILED|ERROR)|passed|failed|Error" "$W/w/h200-gpu-tests-line-copies-own.log" | tail -30 | cut -c1-300
tar -C "$W" -czf "$OUT/ssssssssss.tar.gz" w
TILELAB_REQUIRE_GPU=1 timeout 400 python -m pytest -v -m gpu -n 16 -p no:cacheprovider -rfE --tb=short -W ignore \
  tests/gpu/test_matmul_gpu.py tests/gpu/test_hopper_paths_gpu.py tests/gpu/test_batched_gpu.py \
  tests/gpu/test_linear_gpu.py > "$W/w/h200-gpu-tests-line-copies-rest.log" 2>&1
echo "rest rc=$? $((SECONDS - start)) s"; grep -E "FAILED|ERROR|passed|failed" "$W/w/h200-gpu-tests-line-copies-rest.log" | tail -30 | cut -c1-300
tar -C "$W" -czf "$OUT/ssssssssss.tar.gz" w
