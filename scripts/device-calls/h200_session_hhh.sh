#!/bin/bash
# Device call HHH (2026-11-29 session 9): 1000^3 split over K into larger tiles, through pointers and through
# tensor descriptors, in turns with torch and the default.
export PYTHONPATH=src:.
timeout 400 python scripts/h200_1000_splitk_probe.py --rounds 10 > "$OUT/h200-1000-splitk-probe.log" 2>&1
echo "probe rc=$?"
cat "$OUT/h200-1000-splitk-probe.log"
