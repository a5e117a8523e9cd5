#!/bin/bash
# Device call QQQQQ (2026-11-30 session 16): the row-class probe with descriptors built on the host.
export PYTHONPATH=src:.
mkdir -p /tmp/q
timeout 400 python scripts/h200_row_class_probe.py --rounds 10 2>&1 | tee /tmp/q/h200-row-class-probe-host.log
tar czf "$OUT/qqqqq.tar.gz" -C /tmp q
