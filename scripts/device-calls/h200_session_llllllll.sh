#!/bin/bash
# Device call LLLLLLLL (twenty-seventh session, branch conv-direct-maxnreg): the direct kernel's tiles with and
# without ptxas's register cap (scripts/h200_conv_direct_registers_probe.py), from a `git archive` of the commit
# named by TILELAB_SOURCE_COMMIT (device-snapshot.tar).
W=/tmp/wll; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
echo "source commit $TILELAB_SOURCE_COMMIT" > "$W/w/h200-conv-direct-registers-probe.log"
timeout 420 python scripts/h200_conv_direct_registers_probe.py >> "$W/w/h200-conv-direct-registers-probe.log" 2>&1
echo "probe rc=$?"; sed -n '/best per layer/,$p' "$W/w/h200-conv-direct-registers-probe.log"
grep -c failed "$W/w/h200-conv-direct-registers-probe.log"
tar -C "$W" -czf "$OUT/llllllll.tar.gz" w
