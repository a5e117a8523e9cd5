#!/bin/bash
# Device call XX (2026-11-29 session 8): which kernels torch runs; tf32 in Gluon with B through registers.
export PYTHONPATH=src:.
timeout 120 python scripts/h200_torch_kernels.py > "$OUT/h200-torch-kernels.log" 2>&1
echo "torch kernels rc=$?"
timeout 300 python scripts/h200_tf32_gluon_probe.py --rounds 6 > "$OUT/h200-tf32-gluon-probe.log" 2>&1
echo "gluon probe rc=$?"
cat "$OUT/h200-tf32-gluon-probe.log"
grep -c . "$OUT/h200-torch-kernels.log"
