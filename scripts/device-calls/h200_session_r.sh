#!/bin/bash
# Device call R (2026-11-29 session 4): longer K steps on the shapes furthest behind torch (probe only).
export PYTHONPATH=src:.
timeout 200 python scripts/h200_small_shapes_probe.py > "$OUT/h200-small-shapes-probe.log" 2>&1
echo "rc=$?"; cat "$OUT/h200-small-shapes-probe.log"
