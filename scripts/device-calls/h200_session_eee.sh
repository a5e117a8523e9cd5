#!/bin/bash
# Device call EEE (2026-11-29 session 8): C's rows on 128-byte lines at 1000^3 (and 3000^3)?
export PYTHONPATH=src:.
timeout 200 python scripts/h200_output_alignment_probe.py --rounds 10 > "$OUT/h200-output-alignment-probe.log" 2>&1
echo "rc=$?"
cat "$OUT/h200-output-alignment-probe.log"
