#!/bin/bash
# Device call NNNNNN (2026-11-30, session 18): shapes between powers of two on every path and a few tiles.
export PYTHONPATH=src:.
W=/tmp/w; mkdir -p "$W"
timeout 200 python scripts/h200_mid_shapes_probe.py --rounds 10 > "$W/h200-mid-shapes-probe.log" 2>&1
echo "probe rc=$?"; cut -c1-150 "$W/h200-mid-shapes-probe.log"
tar -C /tmp -czf "$OUT/nnnnnn.tar.gz" w
