#!/bin/bash
# Device call JJJJJJJJJJ (thirty-fourth session): every GPU test but conv's (KKKKKKKKKK runs them) and the fuzz
# tests (IIIIIIIIII), after ops/matmul.py was split into matmul_plan, descriptors and bound_launch
# (GGGGGGGGGG's command).
W=/tmp/wj10; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
cp -a . "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
TILELAB_REQUIRE_GPU=1 timeout 550 python -m pytest tests/gpu -q -m gpu -n 16 -p no:cacheprovider -rfE -W ignore \
  --timeout 400 --durations=15 --ignore tests/gpu/test_conv_gpu.py --ignore tests/gpu/test_fuzz_gpu.py \
  > "$W/w/h200-gpu-tests-session34.log" 2>&1
echo "tests rc=$?"; grep -v "^\.\|^$" "$W/w/h200-gpu-tests-session34.log" | tail -30 | cut -c1-200
tar -C "$W" -czf "$OUT/jjjjjjjjjj.tar.gz" w
