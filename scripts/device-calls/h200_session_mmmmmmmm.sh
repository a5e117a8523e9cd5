#!/bin/bash
# Device call MMMMMMMM (twenty-seventh session, branch conv-direct-maxnreg): LLLLLLLL again, the probe timing a replay
# of each capped launch (LLLLLLLL timed Triton's binder, slower than the GPU), from a `git archive` of the commit
# named by TILELAB_SOURCE_COMMIT (device-snapshot.tar).
W=/tmp/wmm; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
echo "source commit $TILELAB_SOURCE_COMMIT" > "$W/w/h200-conv-direct-registers-probe-replays.log"
timeout 420 python scripts/h200_conv_direct_registers_probe.py >> "$W/w/h200-conv-direct-registers-probe-replays.log" 2>&1
echo "probe rc=$?"; sed -n '/best per layer/,$p' "$W/w/h200-conv-direct-registers-probe-replays.log"
grep -c failed "$W/w/h200-conv-direct-registers-probe-replays.log"
tar -C "$W" -czf "$OUT/mmmmmmmm.tar.gz" w
