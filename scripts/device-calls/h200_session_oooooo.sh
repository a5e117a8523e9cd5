#!/bin/bash
# Device call OOOOOO (2026-11-30, session 19): tiles 1.5 powers of two wide at shapes between powers of two;
# pretune the half-octave buckets of 768^3, 1536^3 and 3072^3 (fp16, bf16) for the shipped table.
export PYTHONPATH=src:.
W=/tmp/w; mkdir -p "$W/pretune"
timeout 240 python scripts/h200_three_halves_probe.py --rounds 10 > "$W/h200-three-halves-probe.log" 2>&1
echo "probe rc=$?"; cut -c1-150 "$W/h200-three-halves-probe.log"
TILELAB_CACHE_DIR="$W/pretune" timeout 240 python -c "
import json, tilelab
print(json.dumps(tilelab.pretune([(768, 768, 768), (1536, 1536, 1536), (3072, 3072, 3072)]), indent=1))
" > "$W/h200-pretune-mid-shapes.log" 2>&1
echo "pretune rc=$?"; tail -c 3000 "$W/h200-pretune-mid-shapes.log"; ls -R "$W/pretune"
tar -C /tmp -czf "$OUT/oooooo.tar.gz" w
