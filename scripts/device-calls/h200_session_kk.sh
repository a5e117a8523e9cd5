#!/bin/bash
# Device call KK (2026-11-29 session 6): one fp8 tile takes twice torch's GPU time in a CUDA graph; every fp8
# candidate and the fp16 paths on tiny problems (scripts/h200_tiny_tiles_probe.py).
export PYTHONPATH=src:.
timeout 300 python scripts/h200_tiny_tiles_probe.py 2>&1 | tee "$OUT/h200-tiny-tiles-probe.log" | grep -v Warning
