#!/bin/bash
# Device call KKK (2026-11-29 session 9): pointer loads against TMA on misaligned rows (1000^3, 3000^3,
# 5000^3); where a planned call's host time goes.
export PYTHONPATH=src:.
timeout 330 python scripts/h200_misaligned_paths_probe.py --rounds 6 > "$OUT/h200-misaligned-paths-probe.log" 2>&1
echo "paths probe rc=$?"
cat "$OUT/h200-misaligned-paths-probe.log"
timeout 150 python scripts/h200_planning_profile.py > "$OUT/h200-planning-profile.log" 2>&1
echo "profile rc=$?"
grep -E "^==|cumtime|tilelab|triton|torch" "$OUT/h200-planning-profile.log" | cut -c1-160 | head -120
