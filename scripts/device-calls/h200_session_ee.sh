#!/bin/bash
# Device call EE (2026-11-29 session 6): skinny split-K reductions (own plane kept / atomics) and 1000^3's
# misaligned A rows (A through pointers, B through TMA; A copied into padded rows), cold and warm L2.
export PYTHONPATH=src:.
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
timeout 560 python scripts/h200_skinny_probe.py --rounds 5 2>&1 | tee "$OUT/h200-skinny-probe.log" | grep -v Warning
