#!/bin/bash
# Device call PPPPPPPPPP (thirty-sixth session): OOOOOOOOOO's probe again, every shape (it stopped after four on
# the probe's own bug), the Triton copy now in 16-byte vectors, and A and B copied by it too.
W=/tmp/wp10; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
cp -a . "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
start=$SECONDS
TILELAB_CACHE_DIR="$W/w/tuning-cache" timeout 480 python scripts/h200_b_copy_probe.py --rounds 10 \
  > "$W/w/h200-b-copy-probe-2.log" 2>&1
echo "probe rc=$? $((SECONDS - start)) s"
cat "$W/w/h200-b-copy-probe-2.log" | cut -c1-220
ls "$W/w/tuning-cache" 2>/dev/null && echo "the cache was written: something was tuned" || echo "nothing reached the cache"
tar -C "$W" -czf "$OUT/pppppppppp.tar.gz" w
