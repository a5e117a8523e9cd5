#!/bin/bash
# Device call KKKKKK (2026-11-30, session 18): shapes between powers of two on their bucket's shipped winner
# against a winner tuned at the shape itself (do the other paths need half-octave buckets too?).
export PYTHONPATH=src:.
W=/tmp/w; mkdir -p "$W/tune-buckets"
TILELAB_CACHE_DIR="$W/tune-buckets" timeout 300 python scripts/h200_bucket_probe.py --rounds 10 \
  > "$W/h200-bucket-probe.log" 2>&1
echo "probe rc=$?"; cut -c1-160 "$W/h200-bucket-probe.log"
tar -C /tmp -czf "$OUT/kkkkkk.tar.gz" w
