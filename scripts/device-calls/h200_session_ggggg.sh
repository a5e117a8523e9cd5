#!/bin/bash
# Device call GGGGG (2026-11-30 session 15): does the tensor maps' L2 promotion (Triton: 128B; CUTLASS: 256B)
# change tilelab's default launches? fp16 single and batched shapes, then bf16.
export PYTHONPATH=src:.
W=/tmp/g; mkdir -p "$W"
pack() { tar -C /tmp -czf "$OUT/ggggg.tar.gz" g; }
nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv > "$W/gpu.txt"
timeout 300 python scripts/h200_l2_promotion_probe.py --dtype fp16 --rounds 8 2>&1 | grep -v Warning \
  | tee "$W/h200-l2-promotion-probe-fp16.log"
pack
timeout 150 python scripts/h200_l2_promotion_probe.py --dtype bf16 --rounds 8 --shapes single 2>&1 \
  | grep -v Warning | tee "$W/h200-l2-promotion-probe-bf16.log"
pack
