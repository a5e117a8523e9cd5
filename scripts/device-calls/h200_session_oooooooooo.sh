#!/bin/bash
# Device call OOOOOOOOOO (thirty-sixth session): does copying B alone onto 128-byte lines pay before a large
# matmul, now that A's rows are read in classes and aligned rows get wide tiles or the pingpong kernel?
# (scripts/h200_b_copy_probe.py; the ninth session's copies of A and B lost at every size.)
W=/tmp/wo10; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
cp -a . "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
start=$SECONDS
TILELAB_CACHE_DIR="$W/w/tuning-cache" timeout 480 python scripts/h200_b_copy_probe.py --rounds 10 \
  > "$W/w/h200-b-copy-probe.log" 2>&1
echo "probe rc=$? $((SECONDS - start)) s"
cat "$W/w/h200-b-copy-probe.log" | cut -c1-220
ls "$W/w/tuning-cache" 2>/dev/null && echo "the cache was written: something was tuned" || echo "nothing reached the cache"
tar -C "$W" -czf "$OUT/oooooooooo.tar.gz" w
