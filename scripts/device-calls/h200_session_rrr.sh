#!/bin/bash
# Device call RRR (2026-11-29 session 10): call QQQ put 127x255x65's eager call at 1.49x torch's, timed once per
# variant one after the other; the overhead script now takes turns (twice, and once without the garbage
# collection before the turns). Then deep pipelines for 128x4096x4096, at 0.90-0.92x torch.
export PYTHONPATH=src:.
for run in 1 2; do
  timeout 90 python scripts/h200_overhead.py --rounds 10 > "$OUT/h200-overhead-turns-$run.log" 2>&1
  echo "overhead $run rc=$?"; head -8 "$OUT/h200-overhead-turns-$run.log"
done
timeout 90 python scripts/h200_overhead.py --rounds 10 --no-collect > "$OUT/h200-overhead-turns-no-collect.log" 2>&1
echo "overhead no-collect rc=$?"; head -8 "$OUT/h200-overhead-turns-no-collect.log"
timeout 200 python scripts/h200_skinny_stages_probe.py --rounds 10 > "$OUT/h200-skinny-stages-probe.log" 2>&1
echo "stages rc=$?"; cat "$OUT/h200-skinny-stages-probe.log"
