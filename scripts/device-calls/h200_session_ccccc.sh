#!/bin/bash
# Device call CCCCC (2026-11-30 session 14): how close 127x255x65 fp16 runs to the floor kernel-bench can see
# (an empty kernel, a copy-only kernel, tiles forced), cold and warm L2, in turns with torch.mm.
export PYTHONPATH=src:.
timeout 240 python scripts/h200_tiny_floor_probe.py --rounds 8 2>&1 | grep -v Warning | tee "$OUT/h200-tiny-floor-probe.log"
