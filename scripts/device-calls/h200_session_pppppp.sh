#!/bin/bash
# Device call PPPPPP (2026-11-30, session 19): 1.5x tiles again, built three ways (two dots of 128 and 64
# columns, three dots of 64, or 192 rows from two dots), at more shapes between powers of two.
export PYTHONPATH=src:.
W=/tmp/w; mkdir -p "$W"
timeout 300 python scripts/h200_three_halves_probe.py --rounds 10 > "$W/h200-three-halves-probe-2.log" 2>&1
echo "probe rc=$?"; cut -c1-150 "$W/h200-three-halves-probe-2.log"
tar -C /tmp -czf "$OUT/pppppp.tar.gz" w
