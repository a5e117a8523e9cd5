#!/bin/bash
# Device call SSSSSSSSS (thirty-first session): the course with CUDA present, for the first time. A learner with a
# GPU runs `python -m learning.check NAME` on it (no interpreter); tests/learning checks every solution passes,
# every starter is TODO and every recorded wrong answer fails.
W=/tmp/ws9; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
TILELAB_REQUIRE_GPU=1 timeout 420 python -m pytest -q -n 16 -p no:cacheprovider -rfE -W ignore --timeout 300 \
  --durations 15 tests/learning > "$W/w/h200-gpu-tests-learning-session31.log" 2>&1
echo "rc=$?"; grep -E "^FAILED|^ERROR|passed|failed" "$W/w/h200-gpu-tests-learning-session31.log" | tail -40 | cut -c1-240
# What a learner sees: the check of one Triton exercise's starter, on the GPU.
timeout 100 python -m learning.check triton_matmul > "$W/w/h200-learning-check-triton_matmul-session31.log" 2>&1
echo "check rc=$?"; tail -15 "$W/w/h200-learning-check-triton_matmul-session31.log" | cut -c1-200
tar -C "$W" -czf "$OUT/sssssssss.tar.gz" w
