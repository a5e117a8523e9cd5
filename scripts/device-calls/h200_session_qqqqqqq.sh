#!/bin/bash
# Device call QQQQQQQ (2026-11-30, session 23): how many small groups per implicit-GEMM tile (PACKED_K 16-128).
W=/tmp/w23q; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:. TILELAB_CACHE_DIR="$W/probe-cache"
timeout 240 python scripts/h200_conv_bundle_probe.py > "$W/w/h200-conv-bundle-probe.log" 2>&1
echo "probe rc=$?"; cut -c1-160 "$W/w/h200-conv-bundle-probe.log"
tar -C "$W" -czf "$OUT/qqqqqqq.tar.gz" w
