#!/bin/bash
# Device call TTTTTTTT (twenty-eighth session): where the small default shapes spend their time. Nsight Compute
# on one launch each of torch.mm and tilelab.matmul at 127x255x65, 512^3, 1000^3, 1024^3 and 2048^3 (fp16, then
# bf16), after an empty Triton kernel: duration, instructions and the warps' stall reasons per issued instruction
# (scripts/h200_small_anatomy_probe.py). Caches flushed before each kernel, as kernel-bench's L2 flush does.
W=/tmp/wtt; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
STALLS=""
for r in no_instruction long_scoreboard short_scoreboard barrier wait math_pipe_throttle mio_throttle \
  lg_throttle dispatch_stall membar sleeping selected not_selected branch_resolving drain imc_miss tex_throttle; do
  STALLS="$STALLS,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio"
done
METRICS="gpu__time_duration.sum,sm__cycles_active.avg,sm__cycles_active.max,smsp__inst_executed.sum,launch__registers_per_thread,launch__grid_size,launch__block_size,smsp__cycles_active.avg,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,smsp__warps_launched.sum$STALLS"
for dtype in float16 bfloat16; do
  log="$W/w/h200-small-anatomy-$dtype.log"
  timeout 200 "$NCU" --profile-from-start off --clock-control none --cache-control all --metrics "$METRICS" \
    python scripts/h200_small_anatomy_probe.py --dtype $dtype > "$log" 2>&1
  echo "ncu $dtype rc=$?"
  grep -E "^  [a-zA-Z_]+.*\(|gpu__time_duration|smsp__inst_executed.sum|no_instruction|long_scoreboard|events" "$log" | head -80
  tar -C "$W" -czf "$OUT/tttttttt.tar.gz" w
done
