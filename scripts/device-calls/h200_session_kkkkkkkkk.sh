#!/bin/bash
# Device call KKKKKKKKK (twenty-ninth session): the dense 24- and 40-channel layers' bf16 and fp32 keys, the last
# implicit-GEMM keys of the benchmarked layers without -mul timings, tuned on first sight (the tuner compiles its
# candidates ahead by itself now) from a copy of the table without them; the cache is what gets merged.
W=/tmp/wk9; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
python - <<'PY'
import json, torch
from tilelab.ops import conv as conv_op
path = "src/tilelab/tuned/h200.json"
table = json.load(open(path))
dropped = []
for n, c, h, w, co, k, s in ((32, 24, 112, 112, 24, 3, 1), (32, 40, 56, 56, 40, 3, 1)):
    g = conv_op.ConvGeometry(n, c, h, w, co, k, k, (s, s), (k // 2, k // 2), (1, 1), 1)
    for name in ("bfloat16", "float32"):
        dtype = getattr(torch, name)
        x = torch.empty(n, c, h, w, dtype=dtype, device="cuda").to(memory_format=torch.channels_last)
        wt = torch.empty(co, c, k, k, dtype=dtype, device="cuda").to(memory_format=torch.channels_last)
        key = conv_op.tuning_key(x, wt, g, "tf32", True)
        if table["entries"].pop(key, None) is not None:
            dropped.append(key)
json.dump(table, open(path, "w"), indent=1)
print(f"dropped {len(dropped)} keys from the shipped table (this copy only)")
PY
start=$SECONDS
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for dtype in bfloat16 float32; do
  f="$W/w/h200-conv2d_bn_silu-$dtype-dense-24-40-session29"
  TILELAB_CACHE_DIR="$W/w/tuning-cache" timeout 80 $BENCH --op conv2d_bn_silu --dtype $dtype \
    --shape 32 24 112 112 24 3 1 --shape 32 40 56 56 40 3 1 --output "$f.json" > "$f.log" 2>&1
  echo "$dtype rc=$? $((SECONDS - start)) s"; grep -E "│|geometric" "$f.log" | cut -c1-110
  tar -C "$W" -czf "$OUT/kkkkkkkkk.tar.gz" w
done
python - "$W/w/tuning-cache" <<'PY'
import json, sys, pathlib
for f in pathlib.Path(sys.argv[1]).glob("*.json"):
    for key, entry in json.load(open(f)).get("entries", {}).items():
        best = sorted(entry.get("timings_ms", {}).items(), key=lambda kv: kv[1])
        print(key.split("|", 2)[2][:80], best[:3])
PY
tar -C "$W" -czf "$OUT/kkkkkkkkk.tar.gz" w
