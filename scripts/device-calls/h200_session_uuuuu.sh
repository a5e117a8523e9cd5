#!/bin/bash
# Device call UUUUU (2026-11-30 session 16): the row-class rule with and without, where it newly applies.
export PYTHONPATH=src:.
W=/tmp/v; mkdir -p "$W/cache"
TILELAB_CACHE_DIR="$W/cache" timeout 300 python scripts/h200_row_class_rule_probe.py --rounds 10 2>&1 \
  | grep -v Warning | tee "$W/h200-row-class-rule-probe.log"
tar -C /tmp -czf "$OUT/uuuuu.tar.gz" v
