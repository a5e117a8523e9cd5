#!/bin/bash
# Device call U (2026-11-29 session 4): tf32 computed as (B^T A^T)^T, which needs no copy of B (probe only).
export PYTHONPATH=src:.
timeout 200 python scripts/h200_tf32_swap_probe.py > "$OUT/h200-tf32-swap-probe.log" 2>&1
echo "rc=$?"; cat "$OUT/h200-tf32-swap-probe.log"
