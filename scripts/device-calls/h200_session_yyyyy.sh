#!/bin/bash
# Device call YYYYY (2026-11-30, session 17): one GEMM with B stored [N, K], with and without row classes (the
# rule now leaves it alone, as batches lost there in XXXXX); the batched default sweeps (bmm, fp16 and bf16) with
# the classes' shipped tuning.
export PYTHONPATH=src:.
W=/tmp/w; mkdir -p "$W"
export TILELAB_CACHE_DIR=/tmp/cache-yyyyy
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
{ timeout 150 python scripts/h200_row_class_rule_probe.py --b-nk --shape 1000 1000 1000 --rounds 10
  timeout 100 python scripts/h200_row_class_rule_probe.py --b-nk --shape 3000 3000 3000 --dtype float16 --rounds 10
} 2>&1 | tee "$W/h200-row-class-b-nk-probe.log" | grep -v "^  [a-z ]*: "
for dtype in float16 bfloat16; do
  timeout 150 $BENCH --op bmm --dtype $dtype --time-budget 70 --variants torch,tilelab \
    --output "$W/h200-bmm-$dtype-row-classes.json" > "$W/h200-bmm-$dtype-row-classes.txt" 2>&1
  echo "bench $dtype rc=$?"; grep -i "geomean\|geometric\|1000" "$W/h200-bmm-$dtype-row-classes.txt" | head -5
done
cp /tmp/cache-yyyyy/*.json "$W/" 2>/dev/null
tar -C /tmp -czf "$OUT/yyyyy.tar.gz" w
