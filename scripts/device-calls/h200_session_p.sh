#!/bin/bash
# Device call P (2026-11-29 session 4): re-tune the descriptor path where single GEMMs now take it (host-built
# descriptors), probe split-K through host-built descriptors, then the fp8 and tf32 sweeps (variants taking
# turns) and the host overhead.
export PYTHONPATH=src:. TILELAB_CACHE_DIR="$OUT/cache"
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> "$OUT/times.txt"; }
TILELAB_SHIPPED_TUNING=0 timeout 120 python scripts/h200_retune.py 1000,1000,1000 2048,2048,2048 \
  > "$OUT/h200-retune-host-descriptors.log" 2>&1; step retune $?
timeout 120 python scripts/h200_splitk_tma_probe.py > "$OUT/h200-splitk-tma-probe.log" 2>&1; step splitk-probe $?
BENCH=(python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5)
timeout 110 "${BENCH[@]}" --op scaled_matmul --dtype float8_e4m3fn --tune \
  --output "$OUT/h200-scaled-matmul-fp8-rounds.json" > /tmp/sweep-fp8.log 2>&1; step fp8 $?
timeout 90 "${BENCH[@]}" --op matmul --dtype float32 --precision tf32 --tune --shape 4096 4096 4096 \
  --shape 8192 8192 8192 --output "$OUT/h200-matmul-float32-tf32-rounds.json" > /tmp/sweep-tf32.log 2>&1
step tf32 $?
timeout 60 python scripts/h200_overhead.py > "$OUT/h200-overhead-host-descriptors.log" 2>&1; step overhead $?
cat "$OUT/times.txt"; cut -c1-300 "$OUT/h200-retune-host-descriptors.log"; cat "$OUT/h200-splitk-tma-probe.log"
head -12 "$OUT/h200-overhead-host-descriptors.log"
for f in /tmp/sweep-*.log; do echo "== $f"; grep -E "│|geometric" "$f"; tail -2 "$f"; done
