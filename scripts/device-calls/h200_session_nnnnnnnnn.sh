#!/bin/bash
# Device call NNNNNNNNN (thirtieth session): the contract changes on the GPU (the contract tests with CUDA tensors,
# every GPU test that replays), and the eager call's host overhead after them (127x255x65, as GGGGGGGGG measured).
W=/tmp/wn9; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
python scripts/h200_overhead.py --rounds 10 > "$W/w/h200-overhead-session30.log" 2>&1
echo "overhead rc=$?"; head -8 "$W/w/h200-overhead-session30.log"
tar -C "$W" -czf "$OUT/nnnnnnnnn.tar.gz" w
TILELAB_REQUIRE_GPU=1 timeout 400 python -m pytest -q -n 16 -p no:cacheprovider -rfE -W ignore --timeout 300 \
  tests/unit/test_contracts.py tests/interpreter/test_rows_interpreter.py tests/interpreter/test_linear_interpreter.py \
  tests/interpreter/test_conv_split_k_interpreter.py "tests/interpreter/test_conv_interpreter.py::test_bad_arguments_get_typed_errors" \
  tests/gpu -k "contract or bad or refus or replay or graph or typed or sparse or numpy or silu" \
  > "$W/w/h200-gpu-tests-contracts-session30.log" 2>&1
echo "tests rc=$?"; tail -6 "$W/w/h200-gpu-tests-contracts-session30.log" | cut -c1-200
tar -C "$W" -czf "$OUT/nnnnnnnnn.tar.gz" w
