#!/bin/bash
# Device call HHHHH (2026-11-30 session 15): TMA and pointer reads of rows off 32-byte sectors, no matmul.
export PYTHONPATH=src:.
W=/tmp/h; mkdir -p "$W"
pack() { tar -C /tmp -czf "$OUT/hhhhh.tar.gz" h; }
timeout 240 python scripts/h200_row_alignment_read_probe.py --rounds 6 2>&1 | grep -v Warning \
  | tee "$W/h200-row-alignment-read-probe.log"
pack
