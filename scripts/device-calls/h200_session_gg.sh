#!/bin/bash
# Device call GG (2026-11-29 session 6): split-K at M = 128 and 16 after the re-tune: eviction hints, 8 warps,
# deeper pipelines of shorter K steps, wider tiles (scripts/h200_skinny_evict_probe.py).
export PYTHONPATH=src:.
timeout 400 python scripts/h200_skinny_evict_probe.py --rounds 5 2>&1 | tee "$OUT/h200-skinny-evict-probe.log" \
  | grep -v Warning
