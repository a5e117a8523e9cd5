#!/bin/bash
# Device call VVVVVVVV (twenty-eighth session): flat K steps for the implicit GEMM (`ConvConfig.flat_k`,
# `kernels/conv.py: flat_k_blocks`). In this copy the shipped table forgets the layers whose candidates now include
# flat tiles (`ops.conv.flat_k_fits`: the 3-channel stem, the ragged 33 channels, dense 24 and 40 channels,
# RegNetX's groups of 24), so kernel-bench tunes them on first sight among tap and flat tiles alike; the tuning
# cache keeps every candidate's time. fp16, bf16, then fp32.
W=/tmp/wvv; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
DENSE=(--shape 8 3 640 640 32 3 2 --shape 7 33 31 29 65 3 1 --shape 32 24 112 112 24 3 1 --shape 32 40 56 56 40 3 1)
GROUPED=(--shape 32 168 28 28 168 3 1 7 --shape 32 408 14 14 408 3 1 17)
python - <<'PY'
import json, torch
from tilelab.ops import conv as conv_op
path = "src/tilelab/tuned/h200.json"
table = json.load(open(path))
layers = [(8, 3, 640, 640, 32, 3, 2, 1), (7, 33, 31, 29, 65, 3, 1, 1), (32, 24, 112, 112, 24, 3, 1, 1),
          (32, 40, 56, 56, 40, 3, 1, 1), (32, 168, 28, 28, 168, 3, 1, 7), (32, 408, 14, 14, 408, 3, 1, 17)]
dropped = []
for n, c, h, w, co, k, s, groups in layers:
    g = conv_op.ConvGeometry(n, c, h, w, co, k, k, (s, s), (k // 2, k // 2), (1, 1), groups)
    assert conv_op.flat_k_fits(g), (n, c, h, w, co, k, s, groups)
    for dtype in (torch.float16, torch.bfloat16, torch.float32):
        x = torch.empty(n, c, h, w, dtype=dtype, device="cuda").to(memory_format=torch.channels_last)
        wt = torch.empty(co, c // groups, k, k, dtype=dtype, device="cuda").to(memory_format=torch.channels_last)
        key = conv_op.tuning_key(x, wt, g, "tf32", True)
        if table["entries"].pop(key, None) is not None:
            dropped.append(key)
json.dump(table, open(path, "w"), indent=1)
print(f"dropped {len(dropped)} keys from the shipped table (this copy only)")
print("\n".join(dropped))
PY
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for dtype in float16 bfloat16 float32; do
  f="$W/w/h200-conv2d_bn_silu-$dtype-flat-k"
  TILELAB_CACHE_DIR="$W/w/tuning-cache" timeout 150 $BENCH --op conv2d_bn_silu --dtype $dtype "${DENSE[@]}" \
    --output "$f.json" > "$f.log" 2>&1
  echo "dense $dtype rc=$?"; grep -E "^\s*[0-9].*x|geometric" "$f.log" | cut -c1-150
  f="$W/w/h200-conv2d_bn_silu-grouped-$dtype-flat-k"
  TILELAB_CACHE_DIR="$W/w/tuning-cache" timeout 100 $BENCH --op conv2d_bn_silu-grouped --dtype $dtype \
    "${GROUPED[@]}" --output "$f.json" > "$f.log" 2>&1
  echo "grouped $dtype rc=$?"; grep -E "^\s*[0-9].*x|geometric" "$f.log" | cut -c1-150
  tar -C "$W" -czf "$OUT/vvvvvvvv.tar.gz" w
done
python - "$W/w/tuning-cache" <<'PY'
import json, sys, pathlib
for f in pathlib.Path(sys.argv[1]).glob("*.json"):
    for key, entry in json.load(open(f)).get("entries", {}).items():
        times = entry.get("timings_ms", {})
        best = sorted(times.items(), key=lambda kv: kv[1])
        flat = [kv for kv in best if kv[0].endswith("-flat")][:2]
        tap = [kv for kv in best if not kv[0].endswith("-flat")][:2]
        print(key.split("|", 2)[2][:90], "\n   tap:", tap, "\n   flat:", flat)
PY
