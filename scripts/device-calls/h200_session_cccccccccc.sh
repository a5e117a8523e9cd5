#!/bin/bash
# Device call CCCCCCCCCC (thirty-second session): BBBBBBBBBB's tests again after its fix (a HopperConfig's split_k
# is checked against the path in the contract checks: linear's split-K tests had failed), with CUDA present:
# matmul's backward through the op (torch.compile training), a forced path's contiguous gradient, the public
# functions under torch.compile (fullgraph), a HopperConfig's split_k taking the split-K path, scaled_matmul's
# refusal of inputs that require grad; the explain walkthroughs' tests
# (the host overhead was measured in BBBBBBBBBB).
W=/tmp/wc10; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
cp -a . "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
TILELAB_REQUIRE_GPU=1 timeout 400 python -m pytest -q -n 16 -p no:cacheprovider -rfEs -W ignore --timeout 300 \
  tests/interpreter/test_autograd_interpreter.py tests/interpreter/test_bfloat16_interpreter.py \
  tests/unit/test_matmul_planning_edges.py tests/interpreter/test_hopper_paths_interpreter.py \
  tests/interpreter/test_linear_edges_interpreter.py tests/interpreter/test_linear_interpreter.py \
  tests/interpreter/test_rows_interpreter.py tests/gpu/test_hopper_paths_gpu.py tests/gpu/test_linear_gpu.py \
  tests/learning/test_learning_explain.py > "$W/w/h200-gpu-tests-user-review-session32-fixed.log" 2>&1
echo "tests rc=$?"; grep -E "^FAILED|^ERROR|passed|failed" "$W/w/h200-gpu-tests-user-review-session32-fixed.log" | tail -20 | cut -c1-300
tar -C "$W" -czf "$OUT/cccccccccc.tar.gz" w
