#!/bin/bash
# Device call DDDDDDDDD (twenty-ninth session): tap tiles with their pixels divided by multiplication
# (`ConvConfig.windows_by_multiplication`, label -mul) join the tuner's candidates. In this copy the shipped table
# forgets the dense layers where CCCCCCCCC (every tap tile multiplying) measured gains: the 1x1 expansion and
# reduction, the stride-2 and 40x40 3x3 layers, 56x56x64 (three dtypes each) and fp32's stem (tap steps; flat
# steps untimed since they multiply). Their candidates compile first in parallel processes
# (`scripts/warm_conv_candidates.py`), then kernel-bench tunes them on first sight; the tuning cache keeps every
# candidate's time.
W=/tmp/wd9; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
SHAPES=(--shape 32 64 56 56 256 1 1 --shape 32 256 56 56 64 1 1 --shape 8 128 80 80 256 3 2
        --shape 8 256 40 40 256 3 1 --shape 32 64 56 56 64 3 1)
STEM=(--shape 8 3 640 640 32 3 2)
python - <<'PY'
import json, torch
from tilelab.ops import conv as conv_op
path = "src/tilelab/tuned/h200.json"
table = json.load(open(path))
layers = [((32, 64, 56, 56, 256, 1, 1), ("float16", "bfloat16", "float32")),
          ((32, 256, 56, 56, 64, 1, 1), ("float16", "bfloat16", "float32")),
          ((8, 128, 80, 80, 256, 3, 2), ("float16", "bfloat16", "float32")),
          ((8, 256, 40, 40, 256, 3, 1), ("float16", "bfloat16", "float32")),
          ((32, 64, 56, 56, 64, 3, 1), ("float16", "bfloat16", "float32")),
          ((8, 3, 640, 640, 32, 3, 2), ("float32",))]
dropped = []
for (n, c, h, w, co, k, s), dtypes in layers:
    g = conv_op.ConvGeometry(n, c, h, w, co, k, k, (s, s), (k // 2, k // 2), (1, 1), 1)
    for name in dtypes:
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
timeout 200 python scripts/warm_conv_candidates.py --dtype float16 --dtype bfloat16 --dtype float32 "${SHAPES[@]}" \
  > "$W/w/h200-conv-mul-warm.log" 2>&1
echo "warm rc=$? $((SECONDS - start)) s"; tail -2 "$W/w/h200-conv-mul-warm.log"
timeout 60 python scripts/warm_conv_candidates.py --dtype float32 "${STEM[@]}" >> "$W/w/h200-conv-mul-warm.log" 2>&1
echo "warm stem rc=$? $((SECONDS - start)) s"; tail -1 "$W/w/h200-conv-mul-warm.log"
tar -C "$W" -czf "$OUT/ddddddddd.tar.gz" w
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
for dtype in float16 bfloat16 float32; do
  extra=(); [ $dtype = float32 ] && extra=("${STEM[@]}")
  f="$W/w/h200-conv2d_bn_silu-$dtype-mul-tuning"
  TILELAB_CACHE_DIR="$W/w/tuning-cache" timeout 120 $BENCH --op conv2d_bn_silu --dtype $dtype "${SHAPES[@]}" \
    "${extra[@]}" --output "$f.json" > "$f.log" 2>&1
  echo "tune $dtype rc=$? $((SECONDS - start)) s"; grep -E "geometric" "$f.log" | cut -c1-110
  tar -C "$W" -czf "$OUT/ddddddddd.tar.gz" w
done
python - "$W/w/tuning-cache" <<'PY'
import json, sys, pathlib
for f in pathlib.Path(sys.argv[1]).glob("*.json"):
    for key, entry in json.load(open(f)).get("entries", {}).items():
        best = sorted(entry.get("timings_ms", {}).items(), key=lambda kv: kv[1])
        mul = [kv for kv in best if kv[0].endswith("-mul")][:2]
        other = [kv for kv in best if not kv[0].endswith("-mul")][:2]
        print(key.split("|", 2)[2][:90], "\n   -mul:", mul, "\n   other:", other)
PY
tar -C "$W" -czf "$OUT/ddddddddd.tar.gz" w
