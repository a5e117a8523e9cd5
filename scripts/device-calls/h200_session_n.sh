#!/bin/bash
# Device call N (2026-11-29 session 4): descriptors built on the host against descriptors built in every
# program, same kernels and configurations, variants taking turns.
export PYTHONPATH=src:.
t0=$(date +%s)
for dt in float16 bfloat16; do
  timeout 200 python scripts/h200_host_descriptor_probe.py --rounds 5 --dtype $dt \
    > "$OUT/h200-host-descriptor-probe-$dt.log" 2>&1
  echo "$dt rc=$? $(( $(date +%s) - t0 )) s"
done
cat "$OUT"/h200-host-descriptor-probe-*.log | cut -c1-220
