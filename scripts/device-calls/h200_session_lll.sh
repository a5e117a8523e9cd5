#!/bin/bash
# Device call LLL (2026-11-29 session 9): persistent against descriptor kernels on rows off and on 128-byte
# lines (fp16), and the planned-call host time after triton.cdiv left the host code.
export PYTHONPATH=src:.
timeout 360 python scripts/h200_line_alignment_paths_probe.py --rounds 8 > "$OUT/h200-line-alignment-paths-probe.log" 2>&1
echo "paths probe rc=$?"
cat "$OUT/h200-line-alignment-paths-probe.log"
timeout 150 python scripts/h200_planning_profile.py > "$OUT/h200-planning-profile-ceil-div.log" 2>&1
echo "profile rc=$?"
grep -E "^==" "$OUT/h200-planning-profile-ceil-div.log"
