#!/bin/bash
# Device call IIIIIIIII (twenty-ninth session): the tuner compiles its candidates ahead on threads
# (`tuning.compile_ahead`). First-sight tuning of five problems with one thread and with eight, each in a fresh
# process with empty caches; then the GPU tests that tune (compile_ahead's own, pretune, remembered choices,
# shapes between powers of two, long K) and the matmul and conv tests that tune on first sight.
W=/tmp/wi9; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
start=$SECONDS
timeout 300 python scripts/h200_compile_ahead_probe.py --threads 1 8 > "$W/w/h200-compile-ahead-probe.log" 2>&1
echo "probe rc=$? $((SECONDS - start)) s"; cat "$W/w/h200-compile-ahead-probe.log" | head -12
tar -C "$W" -czf "$OUT/iiiiiiiii.tar.gz" w
TILELAB_REQUIRE_GPU=1 timeout 200 python -m pytest -q -m gpu -n 16 -p no:cacheprovider -rfE -W ignore --maxfail=3 \
  --durations=5 tests/gpu/test_compile_ahead_gpu.py tests/gpu/test_conv_gpu.py tests/gpu/test_matmul_gpu.py \
  tests/gpu/test_hopper_paths_gpu.py tests/gpu/test_bench_gpu.py \
  -k "compile_ahead or candidates_compile or one_thread or failing_launch or tuner_compiles or remembered or pretune or between_powers or long_k_with_b or tunable" \
  > "$W/w/h200-gpu-tests-compile-ahead.log" 2>&1
echo "tests rc=$? $((SECONDS - start)) s"; grep -E "FAILED|ERROR|passed|failed" "$W/w/h200-gpu-tests-compile-ahead.log" | tail -6 | cut -c1-200
tar -C "$W" -czf "$OUT/iiiiiiiii.tar.gz" w
