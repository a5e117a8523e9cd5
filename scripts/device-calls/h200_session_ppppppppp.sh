#!/bin/bash
# Device call PPPPPPPPP (thirtieth session): OOOOOOOOO's eight failures again after their fixes, the contract
# tests, and tests/interpreter with CUDA present (its tests take the `device` fixture: on the GPU they run the real
# kernels on the same ragged shapes, strides and error paths).
W=/tmp/wp9; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
TILELAB_REQUIRE_GPU=1 timeout 100 python -m pytest -q -n 16 -p no:cacheprovider -rfE -W ignore --timeout 90 \
  tests/unit/test_compile_ahead.py tests/unit/test_pingpong_planning.py tests/unit/test_planning.py \
  tests/unit/test_registers_planning.py tests/unit/test_scaled_matmul_tuning.py tests/unit/test_contracts.py \
  > "$W/w/h200-gpu-tests-unit-fixes-session30.log" 2>&1
echo "unit rc=$?"; grep -E "^FAILED|^ERROR|passed|failed" "$W/w/h200-gpu-tests-unit-fixes-session30.log" | tail -12 | cut -c1-220
tar -C "$W" -czf "$OUT/ppppppppp.tar.gz" w
TILELAB_REQUIRE_GPU=1 timeout 380 python -m pytest -q -n 16 -p no:cacheprovider -rfE -W ignore --timeout 300 \
  tests/interpreter > "$W/w/h200-gpu-tests-interpreter-dir-session30.log" 2>&1
echo "interpreter dir rc=$?"; grep -E "^FAILED|^ERROR|passed|failed" "$W/w/h200-gpu-tests-interpreter-dir-session30.log" | tail -30 | cut -c1-220
tar -C "$W" -czf "$OUT/ppppppppp.tar.gz" w
