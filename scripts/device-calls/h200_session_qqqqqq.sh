#!/bin/bash
# Device call QQQQQQ (2026-11-30, session 19): the wide tiles' GPU tests (every tunable config, replays, graphs);
# pretune shapes between powers of two with the wide candidates, for the shipped table.
export PYTHONPATH=src:.
W=/tmp/w; mkdir -p "$W/pretune"
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 200 python -m pytest tests/gpu/test_matmul_gpu.py -q -m gpu \
  -n 16 -p no:cacheprovider -rfE -k "wide or tunable or replayed or between_powers" \
  2>&1 | grep -v "PytestBenchmarkWarning\|^  warner(" > "$W/h200-gpu-tests-wide.log"
echo "tests rc=${PIPESTATUS[0]}"; grep -E "^(FAILED|ERROR)|passed|failed" "$W/h200-gpu-tests-wide.log" | cut -c1-250 | tail -8
TILELAB_CACHE_DIR="$W/pretune" timeout 300 python -c "
import json, tilelab
shapes = [(768, 768, 768), (1536, 1536, 1536), (3072, 3072, 3072), (1536, 1536, 4096), (768, 3072, 4096),
          (768, 4096, 4096), (1536, 4096, 4096), (4096, 1536, 4096)]
for record in tilelab.pretune(shapes):
    print(json.dumps(record))
" > "$W/h200-pretune-wide.log" 2>&1
echo "pretune rc=$?"; cut -c1-200 "$W/h200-pretune-wide.log"
tar -C /tmp -czf "$OUT/qqqqqq.tar.gz" w
