#!/bin/bash
# Device call KKKKK (2026-11-30 session 15): every path's tuning candidates at long K over a small output.
export PYTHONPATH=src:.
W=/tmp/k; mkdir -p "$W/cache"
pack() { tar -C /tmp -czf "$OUT/kkkkk.tar.gz" k; }
TILELAB_SHIPPED_TUNING=0 TILELAB_CACHE_DIR="$W/cache" timeout 420 python scripts/h200_long_k_tuning_probe.py 2>&1 \
  | grep -v Warning | tee "$W/h200-long-k-tuning-probe.log" | grep -E "torch|->"
pack
