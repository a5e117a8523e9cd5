#!/bin/bash
# Device call AAAAAAAAA (twenty-eighth session): Nsight Compute on the stem and the ragged layer, flat and tap K
# steps (scripts/h200_conv_flat_ncu_probe.py): what bounds the stem at 115 us when its bytes need about 18.
W=/tmp/wa9; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
STALLS=""
for r in no_instruction long_scoreboard short_scoreboard barrier wait math_pipe_throttle mio_throttle \
  lg_throttle dispatch_stall membar sleeping selected not_selected branch_resolving drain imc_miss tex_throttle; do
  STALLS="$STALLS,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio"
done
METRICS="l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__inst_executed.sum,smsp__inst_executed_op_global_ld.sum$STALLS"
log="$W/w/h200-ncu-conv-flat.log"
timeout 240 "$NCU" --profile-from-start off --clock-control none -k regex:conv2d \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
  --section SchedulerStats --section WarpStateStats --metrics "$METRICS" \
  python scripts/h200_conv_flat_ncu_probe.py > "$log" 2>&1
echo "ncu rc=$?"
grep -E "^  conv|^[0-9x]+ [0-9]|Duration|Memory Throughput|DRAM Throughput|Compute \(SM\) Throughput|L1/TEX Hit|Achieved Occupancy|Registers Per|Block Limit Reg|Theoretical Occ|Issue Slots Busy|No Eligible|requests_pipe|sectors_pipe|inst_executed.sum|long_scoreboard|lg_throttle|mio_throttle|no_instruction|_wait_|selected_per" "$log" | cut -c1-150 | head -150
tar -C "$W" -czf "$OUT/aaaaaaaaa.tar.gz" w
