#!/bin/bash
# Device call IIIII (2026-11-30 session 15): copy rows off sectors onto lines inside the matmul's launch
# (scripts/realign_kernel.py), against torch, the default and the default on aligned inputs.
export PYTHONPATH=src:.
W=/tmp/i; mkdir -p "$W"
pack() { tar -C /tmp -czf "$OUT/iiiii.tar.gz" i; }
timeout 200 python scripts/h200_realign_probe.py --dtype fp16 --shapes 1000,batch 2>&1 | grep -v Warning \
  | tee "$W/h200-realign-probe-fp16.log"
pack
timeout 120 python scripts/h200_realign_probe.py --dtype bf16 --shapes 1000 2>&1 | grep -v Warning \
  | tee "$W/h200-realign-probe-bf16.log"
pack
timeout 200 python scripts/h200_realign_probe.py --dtype fp16 --shapes large \
  --tiles "128x128x64 s4 w8,128x256x64 s3 w8" 2>&1 | grep -v Warning | tee "$W/h200-realign-probe-large.log"
pack
