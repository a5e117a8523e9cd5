#!/bin/bash
# Device call MMMMMMM (2026-11-30, session 23): linear's epilogue with the SFU's reciprocal and exponential
# (gelu, silu; the persistent kernel back on the polynomial). Runs from a snapshot of one commit
# (`git archive <commit>` as device-snapshot.tar), so work in progress in the checkout cannot leak in.
W=/tmp/w23m; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cp results/h200-calibration.json "$W/" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
TILELAB_REQUIRE_GPU=1 timeout 230 python -m pytest -q -m gpu -n 16 -p no:cacheprovider -rfE --durations=5 \
  tests/gpu/test_linear_gpu.py tests/gpu/test_pingpong_gpu.py > "$W/w/h200-gpu-tests-sfu-epilogue.log" 2>&1
echo "tests rc=$?"; tail -6 "$W/w/h200-gpu-tests-sfu-epilogue.log" | cut -c1-200
tar -C "$W" -czf "$OUT/mmmmmmm.tar.gz" w
timeout 60 python scripts/h200_linear_epilogue_probe.py > "$W/w/h200-linear-epilogue-probe-sfu.log" 2>&1
echo "probe rc=$?"; cat "$W/w/h200-linear-epilogue-probe-sfu.log"
BENCH="python -m tilelab.bench --ceilings $W/h200-calibration.json --no-progress --samples 30 --rounds 5"
for run in "linear float16" "linear-silu float16" "linear bfloat16"; do
  set -- $run
  f="$W/w/h200-$1-$2-sfu"
  timeout 80 $BENCH --op $1 --dtype $2 --output "$f.json" > "$f.log" 2>&1
  echo "bench $1 $2 rc=$?"; tail -12 "$f.log" | cut -c1-120
  tar -C "$W" -czf "$OUT/mmmmmmm.tar.gz" w
done
