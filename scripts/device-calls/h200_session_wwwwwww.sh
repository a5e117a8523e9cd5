#!/bin/bash
# Device call WWWWWWW (2026-11-30, session 24): the Hopper split-K kernels' GPU tests alone (every split config,
# pointers and TMA, determinism), which UUUUUUU's and VVVVVVV's wider split-K runs did not finish in time.
W=/tmp/w24w; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
TILELAB_REQUIRE_GPU=1 timeout 110 python -m pytest -q -m gpu -n 16 -p no:cacheprovider -rfE \
  tests/gpu/test_hopper_paths_gpu.py -k "split" > "$W/w/h200-gpu-tests-hopper-split-k.log" 2>&1
echo "tests rc=$?"; tail -3 "$W/w/h200-gpu-tests-hopper-split-k.log" | cut -c1-200
tar -C "$W" -czf "$OUT/wwwwwww.tar.gz" w
