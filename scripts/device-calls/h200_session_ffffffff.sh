#!/bin/bash
# Device call FFFFFFFF (twenty-sixth session): how many taps' loads the direct kernel should issue at once
# (TAPS_IN_FLIGHT, the config's num_stages). Run from a `git archive` of the commit named by
# TILELAB_SOURCE_COMMIT (device-snapshot.tar). The probe's sweep; Nsight Compute on the 144-channel depthwise
# layer at 16x64 (2 warps) with one tap and with three in flight; the direct kernel's interpreter tests on the GPU.
W=/tmp/wff; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
timeout 260 python scripts/h200_conv_direct_taps_probe.py > "$W/w/h200-conv-direct-taps-probe.log" 2>&1
echo "probe rc=$?"; grep -E "==|torch " "$W/w/h200-conv-direct-taps-probe.log" | cut -c1-100
tar -C "$W" -czf "$OUT/ffffffff.tar.gz" w
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
for tile in 16,64,2,1 16,64,2,3; do
  timeout 90 "$NCU" --clock-control none -k regex:direct --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats \
    --section LaunchStats --section SchedulerStats \
    python scripts/h200_conv_direct_taps_probe.py --once 0 $tile > "$W/w/h200-ncu-direct-${tile//,/-}.log" 2>&1
  echo "ncu $tile rc=$?"; grep -E "Memory Throughput|DRAM Throughput|Duration|Achieved Occupancy|L1/TEX Hit|L2 Hit|Registers Per" "$W/w/h200-ncu-direct-${tile//,/-}.log" | head -12
done
tar -C "$W" -czf "$OUT/ffffffff.tar.gz" w
TILELAB_REQUIRE_GPU=1 timeout 100 python -m pytest -q -n 16 -p no:cacheprovider -rfE \
  tests/interpreter/test_conv_groups_interpreter.py > "$W/w/h200-gpu-tests-conv-taps.log" 2>&1
echo "tests rc=$?"; tail -2 "$W/w/h200-gpu-tests-conv-taps.log" | cut -c1-200
tar -C "$W" -czf "$OUT/ffffffff.tar.gz" w
