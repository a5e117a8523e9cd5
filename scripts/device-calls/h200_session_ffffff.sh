#!/bin/bash
# Device call FFFFFF (2026-11-30, session 18): batches with B's rows off sectors in fewer row classes, so that
# taller tiles read B fewer times (scripts/h200_batch_class_count_probe.py).
export PYTHONPATH=src:.
W=/tmp/w; mkdir -p "$W"
TILELAB_CACHE_DIR="$W/tune-class-count" timeout 400 python scripts/h200_batch_class_count_probe.py --rounds 10 \
  > "$W/h200-batch-class-count-probe.log" 2>&1
echo "probe rc=$?"; cut -c1-160 "$W/h200-batch-class-count-probe.log"
tar -C /tmp -czf "$OUT/ffffff.tar.gz" w
