#!/bin/bash
# Device call CCCCCCC (2026-11-30, session 21): where linear's epilogue costs time on the pingpong kernel
# (scripts/h200_linear_epilogue_probe.py).
export PYTHONPATH=src:.
W=/tmp/w; mkdir -p "$W"
timeout 200 python scripts/h200_linear_epilogue_probe.py > "$W/h200-linear-epilogue-probe.log" 2>&1
echo "probe rc=$?"; cat "$W/h200-linear-epilogue-probe.log" | cut -c1-100
tar -C /tmp -czf "$OUT/ccccccc.tar.gz" w
