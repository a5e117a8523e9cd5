#!/bin/bash
# Device call DDDDDD (2026-11-30, session 18): every GPU test at the seventeenth session's last commit (its review
# moved the by-class descriptors into host_descriptors after the last GPU run); then long K over small outputs
# with B's rows off sectors, every split-K and one-pass tile of interest at the shape itself.
export PYTHONPATH=src:.
W=/tmp/w; mkdir -p "$W"
pack() { tar -C /tmp -czf "$OUT/dddddd.tar.gz" w; }
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 440 python -m pytest tests/gpu -q -m gpu -n 16 \
  -p no:cacheprovider -rfE 2>&1 | grep -v "PytestBenchmarkWarning\|^  warner(" > "$W/h200-gpu-tests-session18.log"
echo "tests rc=${PIPESTATUS[0]}"; grep -E "^(FAILED|ERROR)|passed|failed" "$W/h200-gpu-tests-session18.log" | cut -c1-250 | tail -8
pack
timeout 140 python scripts/h200_long_k_off_sector_probe.py --rounds 6 > "$W/h200-long-k-off-sector-probe.log" 2>&1
echo "probe rc=$?"; cat "$W/h200-long-k-off-sector-probe.log" | cut -c1-160
pack
