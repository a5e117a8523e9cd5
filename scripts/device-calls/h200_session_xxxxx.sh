#!/bin/bash
# Device call XXXXX (2026-11-30, session 17): batches with A's and B's rows off sectors, read in classes by the
# persistent kernel (4-D descriptors), against the same default without classes and torch.
export PYTHONPATH=src:.
W=/tmp/w; mkdir -p "$W"
export TILELAB_CACHE_DIR=/tmp/cache-xxxxx
timeout 500 python scripts/h200_batch_row_class_probe.py --rounds 10 2>&1 | tee "$W/h200-batch-row-class-probe.log" | tail -60
cp /tmp/cache-xxxxx/*.json "$W/" 2>/dev/null
tar -C /tmp -czf "$OUT/xxxxx.tar.gz" w
