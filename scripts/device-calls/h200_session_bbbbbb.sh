#!/bin/bash
# Device call BBBBBB (2026-11-30, session 17): one GEMM off sectors, the persistent kernel in row classes against
# the default's descriptor kernel in classes.
export PYTHONPATH=src:.
W=/tmp/w; mkdir -p "$W"
export TILELAB_CACHE_DIR=/tmp/cache-bbbbbb
timeout 400 python scripts/h200_persistent_classes_probe.py --rounds 10 2>&1 | tee "$W/h200-persistent-classes-probe.log" | tail -40
cp /tmp/cache-bbbbbb/*.json "$W/" 2>/dev/null
tar -C /tmp -czf "$OUT/bbbbbb.tar.gz" w
