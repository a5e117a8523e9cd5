#!/bin/bash
# Device call MM (2026-11-29 session 6): tf32 at 4096^3 and 8192^3 with the current code, and the share of the
# K-major copy of B in it (scripts/h200_tf32_copy_probe.py).
export PYTHONPATH=src:.
timeout 200 python scripts/h200_tf32_copy_probe.py 2>&1 | tee "$OUT/h200-tf32-copy-probe.log" | grep -v Warning
