#!/bin/bash
# Device call PP (2026-11-29 session 7): the tf32 register path with a 4th stage (quarter-width epilogue) and
# other tile orders; 1000^3's descriptor tiles timed at 1000^3 itself.
export PYTHONPATH=src:.
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv
timeout 200 python scripts/h200_tf32_register_probe.py --rounds 6 > "$OUT/h200-tf32-register-probe-2.log" 2>&1
echo "tf32 rc=$?"
cat "$OUT/h200-tf32-register-probe-2.log"
timeout 200 python scripts/h200_misaligned_probe.py --rounds 6 > "$OUT/h200-misaligned-probe.log" 2>&1
echo "misaligned rc=$?"
cat "$OUT/h200-misaligned-probe.log"
