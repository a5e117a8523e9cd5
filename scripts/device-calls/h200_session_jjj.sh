#!/bin/bash
# Device call JJJ (2026-11-29 session 9): call III's 950 us fp16 split-K at 128x1000x8192, taken apart; what
# misaligned rows cost at 3000^3 and 5000^3.
export PYTHONPATH=src:.
timeout 200 python scripts/h200_splitk_anomaly_probe.py > "$OUT/h200-splitk-anomaly-probe.log" 2>&1
echo "anomaly probe rc=$?"
cat "$OUT/h200-splitk-anomaly-probe.log"
timeout 200 python scripts/h200_wave_probe.py --padded --rounds 10 > "$OUT/h200-wave-padded-probe.log" 2>&1
echo "padded probe rc=$?"
cat "$OUT/h200-wave-padded-probe.log"
