#!/bin/bash
# Device call OOOOOOOOO (thirtieth session): tests/unit and tests/instruments with CUDA present (CI runs them on
# CPU tensors only; NNNNNNNNN found twelve contract tests that assumed a CPU), and the contract tests again.
W=/tmp/wo9; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
TILELAB_REQUIRE_GPU=1 timeout 450 python -m pytest -q -n 16 -p no:cacheprovider -rfE -W ignore --timeout 300 \
  tests/unit tests/instruments > "$W/w/h200-gpu-tests-unit-instruments-session30.log" 2>&1
echo "tests rc=$?"; grep -E "^FAILED|^ERROR|passed|failed" "$W/w/h200-gpu-tests-unit-instruments-session30.log" | tail -40 | cut -c1-220
tar -C "$W" -czf "$OUT/ooooooooo.tar.gz" w
