#!/bin/bash
# Device call VV (2026-11-29 session 7): the whole GPU suite at the session's final library code (even grids,
# programs in describe_plan), the test that must run alone, and the grid describe_plan reports.
export PYTHONPATH=src:.
python -c "
import torch, tilelab.ops.matmul as m
for s in [(4096, 4096, 4096), (8192, 8192, 8192), (4096, 11008, 4096), (2048, 8192, 4096)]:
    a = torch.empty(s[0], s[2], device='cuda', dtype=torch.float16); b = torch.empty(s[2], s[1], device='cuda', dtype=torch.float16)
    d = m.describe_plan(a, b); print(s, d['path'], d.get('programs'))
"
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 400 python -m pytest tests/gpu -q -m gpu -n 16 \
  -p no:cacheprovider -rfE --durations=5 > "$OUT/h200-gpu-tests-session7-final.log" 2>&1
echo "suite rc=$?"
TILELAB_CACHE_DIR=/tmp/cache-tests TILELAB_REQUIRE_GPU=1 timeout 90 python -m pytest tests/gpu/test_bench_gpu.py -q \
  -m gpu -p no:cacheprovider -rs -k "graph_and_events" >> "$OUT/h200-gpu-tests-session7-final.log" 2>&1
echo "alone rc=$?"
grep -E "^(FAILED|ERROR)" "$OUT/h200-gpu-tests-session7-final.log" | cut -c1-300 | head
grep -v Warning "$OUT/h200-gpu-tests-session7-final.log" | grep -E "passed|failed" | cut -c1-200
