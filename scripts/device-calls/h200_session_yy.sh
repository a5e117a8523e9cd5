#!/bin/bash
# Device call YY (2026-11-29 session 8): the Gluon tf32 kernel, tile-per-program against persistent.
export PYTHONPATH=src:.
timeout 400 python scripts/h200_tf32_gluon_probe.py --rounds 6 > "$OUT/h200-tf32-gluon-probe-2.log" 2>&1
echo "gluon probe rc=$?"
cat "$OUT/h200-tf32-gluon-probe-2.log"
