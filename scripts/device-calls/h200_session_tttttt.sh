#!/bin/bash
# Device call TTTTTT (2026-11-30, session 19): every GPU test again (SSSSSS ran out of time with two failures:
# tests that expected the pingpong kernel at 3000^3 and an unshipped key at 768^3); the wide rule's new shapes.
export PYTHONPATH=src:.
W=/tmp/w; mkdir -p "$W"
pack() { tar -C /tmp -czf "$OUT/tttttt.tar.gz" w; }
timeout 60 python scripts/h200_wide_rule_probe.py --rounds 10 > "$W/h200-wide-rule-probe.log" 2>&1
echo "probe rc=$?"; cut -c1-150 "$W/h200-wide-rule-probe.log"
pack
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 470 python -m pytest tests/gpu -q -m gpu -n 16 \
  -p no:cacheprovider -rfE 2>&1 | grep -v "PytestBenchmarkWarning\|^  warner(" > "$W/h200-gpu-tests-session19.log"
echo "tests rc=${PIPESTATUS[0]}"; grep -E "^(FAILED|ERROR)|passed|failed" "$W/h200-gpu-tests-session19.log" | cut -c1-250 | tail -8
pack
