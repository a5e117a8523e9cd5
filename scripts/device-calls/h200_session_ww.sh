#!/bin/bash
# Device call WW (2026-11-29 session 7): GROUP_M on the even grid at 4096^3 and 8192^3.
export PYTHONPATH=src:.
timeout 300 python scripts/h200_group_probe.py --rounds 10 > "$OUT/h200-group-probe.log" 2>&1
echo "rc=$?"
cat "$OUT/h200-group-probe.log"
