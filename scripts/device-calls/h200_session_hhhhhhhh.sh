#!/bin/bash
# Device call HHHHHHHH (twenty-sixth session, branch conv-direct-rows): the direct kernel with filter rows,
# magic-number division and channel-multiplier runs. Run from a `git archive` of the commit named by
# TILELAB_SOURCE_COMMIT (device-snapshot.tar). The shipped table's direct-kernel keys are dropped in this copy, so
# kernel-bench's grouped layers tune them on first sight (their winners are merged into the table afterwards);
# the implicit-GEMM layers keep their shipped winners. Nsight Compute on the 144-channel depthwise layer; fp16 and
# bf16 grouped runs; the conv GPU tests. fp32 follows in the next call.
W=/tmp/whh; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
python - <<'PY'
import json
path = "src/tilelab/tuned/h200.json"
table = json.load(open(path))
dropped = [k for k in table["entries"] if "|direct-" in k]
for k in dropped:
    del table["entries"][k]
json.dump(table, open(path, "w"), indent=1)
print(f"dropped {len(dropped)} direct-kernel keys from the shipped table (this copy only)")
PY
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
timeout 60 "$NCU" --clock-control none -k regex:direct --launch-skip 2 --launch-count 1 \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats \
  --section LaunchStats --section SchedulerStats \
  python scripts/h200_conv_direct_taps_probe.py --once 0 256,16,4 > "$W/w/h200-ncu-direct-rows-256-16-4.log" 2>&1
echo "ncu rc=$?"; grep -E "Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|Duration|Achieved Occupancy|Registers Per" \
  "$W/w/h200-ncu-direct-rows-256-16-4.log" | head -8
tar -C "$W" -czf "$OUT/hhhhhhhh.tar.gz" w
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for dtype in float16 bfloat16; do
  f="$W/w/h200-conv2d_bn_silu-grouped-$dtype-direct-rows"
  TILELAB_CACHE_DIR="$W/w/tuning-cache" timeout 190 $BENCH --op conv2d_bn_silu-grouped --dtype $dtype \
    --output "$f.json" > "$f.log" 2>&1
  echo "bench $dtype rc=$?"; grep -E "x72 |x120 |x64 |x144 |geometric" "$f.log" | cut -c1-110
  tar -C "$W" -czf "$OUT/hhhhhhhh.tar.gz" w
done
TILELAB_REQUIRE_GPU=1 timeout 110 python -m pytest -q -n 16 -p no:cacheprovider -rfE tests/gpu/test_conv_gpu.py \
  tests/interpreter/test_conv_groups_interpreter.py tests/interpreter/test_conv_interpreter.py \
  > "$W/w/h200-gpu-tests-conv-direct-rows.log" 2>&1
echo "tests rc=$?"; tail -2 "$W/w/h200-gpu-tests-conv-direct-rows.log" | cut -c1-200
tar -C "$W" -czf "$OUT/hhhhhhhh.tar.gz" w
