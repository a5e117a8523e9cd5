#!/bin/bash
# Device call III (2026-11-29 session 9): the split-K kernel's ALIGN hint against the code before it, then
# every persistent tile at 3000^3 and 5000^3 (poor last waves).
export PYTHONPATH=src:.
timeout 280 python scripts/h200_splitk_align_probe.py --rounds 10 > "$OUT/h200-splitk-align-probe.log" 2>&1
echo "align probe rc=$?"
cat "$OUT/h200-splitk-align-probe.log"
timeout 300 python scripts/h200_wave_probe.py --rounds 6 > "$OUT/h200-wave-probe.log" 2>&1
echo "wave probe rc=$?"
cat "$OUT/h200-wave-probe.log"
