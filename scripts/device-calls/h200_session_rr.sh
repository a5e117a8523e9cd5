#!/bin/bash
# Device call RR (2026-11-29 session 7): the persistent grid sized so every program takes the same number of
# tiles, against the 132-program grid, at the five large shapes, 10 rounds in turns.
export PYTHONPATH=src:.
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv
timeout 420 python scripts/h200_grid_probe.py --rounds 10 > "$OUT/h200-grid-probe.log" 2>&1
echo "rc=$?"
cat "$OUT/h200-grid-probe.log"
