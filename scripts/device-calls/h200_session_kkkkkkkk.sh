#!/bin/bash
# Device call KKKKKKKK (twenty-seventh session, branch conv-direct-weights): the direct kernel on a filter stored
# torch's way and taps first, every tile of scripts/h200_conv_direct_weights_probe.py, from a `git archive` of
# the commit named by TILELAB_SOURCE_COMMIT (device-snapshot.tar).
W=/tmp/wkk; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
echo "source commit $TILELAB_SOURCE_COMMIT" > "$W/w/h200-conv-direct-weights-probe.log"
timeout 480 python scripts/h200_conv_direct_weights_probe.py >> "$W/w/h200-conv-direct-weights-probe.log" 2>&1
echo "probe rc=$?"; sed -n '/best per layer/,$p' "$W/w/h200-conv-direct-weights-probe.log"
tar -C "$W" -czf "$OUT/kkkkkkkk.tar.gz" w
