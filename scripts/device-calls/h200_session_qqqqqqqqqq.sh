#!/bin/bash
# Device call QQQQQQQQQQ (thirty-sixth session): rows TMA cannot read (not 16-byte aligned), copied onto lines
# before the matmul, from small to large problems (PPPPPPPPPP: 1500^3 and 2500^3 1.41x and 1.45x faster).
W=/tmp/wq10; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
cp -a . "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
start=$SECONDS
TILELAB_CACHE_DIR="$W/w/tuning-cache" timeout 480 python scripts/h200_unaligned_copy_probe.py --rounds 10 \
  > "$W/w/h200-unaligned-copy-probe.log" 2>&1
echo "probe rc=$? $((SECONDS - start)) s"
cat "$W/w/h200-unaligned-copy-probe.log" | cut -c1-220
ls "$W/w/tuning-cache" 2>/dev/null && echo "the cache was written: something was tuned" || echo "nothing reached the cache"
tar -C "$W" -czf "$OUT/qqqqqqqqqq.tar.gz" w
