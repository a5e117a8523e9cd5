#!/bin/bash
# Device call V (2026-11-29 session 5): tiny fp16 tuning, ragged 1000^3 alignment, fp8 with fused loops (probe).
export PYTHONPATH=src:.
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv > "$OUT/gpu.txt" 2>&1
timeout 480 python scripts/h200_session5_probe.py --rounds 5 > "$OUT/h200-session5-probe.log" 2>&1
echo "rc=$?"; cat "$OUT/h200-session5-probe.log"
