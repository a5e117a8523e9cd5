#!/bin/bash
# Device call RRRRRRRR (twenty-seventh session): QQQQQQQQ's run stopped at its timeout with 1050 results (1038
# passed, 12 skipped, none failed); the slow tests its last workers held, alone: matmul's and linear's forced
# split-K. Run from a `git archive` of the commit named by TILELAB_SOURCE_COMMIT (device-snapshot.tar).
W=/tmp/wrr; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
TILELAB_REQUIRE_GPU=1 timeout 330 python -m pytest tests/gpu -q -m gpu -n 16 -p no:cacheprovider -rfE \
  --durations=8 -k "split_k or splitk" --ignore tests/gpu/test_conv_gpu.py > "$W/w/h200-gpu-tests-session27-split-k.log" 2>&1
echo "tests rc=$?"; tail -14 "$W/w/h200-gpu-tests-session27-split-k.log" | cut -c1-200
tar -C "$W" -czf "$OUT/rrrrrrrr.tar.gz" w
