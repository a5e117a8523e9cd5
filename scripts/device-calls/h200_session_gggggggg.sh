#!/bin/bash
# Device call GGGGGGGG (twenty-sixth session, branch conv-direct-rows): the direct kernel in three versions,
# timed by the same probe (scripts/h200_conv_direct_taps_probe.py) in one call:
#   t0  1ead5aa (main: the tap loop, TAPS_IN_FLIGHT)      -- device-carry/t0-src.tar
#   t1  17eb288 (filter rows at run time, a row's taps unrolled) -- device-carry/t1-src.tar
#   t2  the snapshot (t1, and pixels' image/row/column by magic-number division)
# then the direct kernel's interpreter tests on the GPU at t2.
W=/tmp/wgg; rm -rf "$W"; mkdir -p "$W/w" "$W/src" "$W/t0" "$W/t1"
tar -xf device-snapshot.tar -C "$W/src" && tar -xf device-carry/t0-src.tar -C "$W/t0" \
  && tar -xf device-carry/t1-src.tar -C "$W/t1" && cd "$W/src" || exit 1
NEW="16,64,2,1 32,64,2,1 32,128,4,1 64,64,4,1 16,256,4,1 128,32,4,1 256,16,4,1"
PYTHONPATH=src:. timeout 170 python scripts/h200_conv_direct_taps_probe.py --tiles $NEW \
  > "$W/w/h200-conv-direct-rows-probe-t2.log" 2>&1; echo "t2 rc=$?"
tar -C "$W" -czf "$OUT/gggggggg.tar.gz" w
PYTHONPATH=$W/t1/src:. timeout 150 python scripts/h200_conv_direct_taps_probe.py --tiles $NEW \
  > "$W/w/h200-conv-direct-rows-probe-t1.log" 2>&1; echo "t1 rc=$?"
tar -C "$W" -czf "$OUT/gggggggg.tar.gz" w
PYTHONPATH=$W/t0/src:. timeout 80 python scripts/h200_conv_direct_taps_probe.py --tiles 16,64,2,1 16,64,2,3 \
  32,128,4,1 > "$W/w/h200-conv-direct-rows-probe-t0.log" 2>&1; echo "t0 rc=$?"
tar -C "$W" -czf "$OUT/gggggggg.tar.gz" w
for f in t2 t1 t0; do echo "== $f"; python - "$W/w/h200-conv-direct-rows-probe-$f.log" <<'PY'
import sys, re
best, layer = {}, None
for line in open(sys.argv[1]):
    if line.startswith("=="):
        layer = line.split()[1]; best[layer] = {"torch": 0.0, "us": 1e9, "tile": ""}
    m = re.match(r"\s+(\S+)\s+([\d.]+) us", line)
    if m and m.group(1) == "torch": best[layer]["torch"] = float(m.group(2))
    elif m and float(m.group(2)) < best[layer]["us"]: best[layer].update(us=float(m.group(2)), tile=m.group(1))
for k, v in best.items(): print(f"{k:30s} torch {v['torch']:7.1f}  best {v['us']:7.1f} {v['tile']}")
PY
done
PYTHONPATH=src:. TILELAB_REQUIRE_GPU=1 timeout 100 python -m pytest -q -n 16 -p no:cacheprovider -rfE \
  tests/interpreter/test_conv_groups_interpreter.py tests/interpreter/test_conv_interpreter.py \
  > "$W/w/h200-gpu-tests-conv-direct-rows.log" 2>&1
echo "tests rc=$?"; tail -2 "$W/w/h200-gpu-tests-conv-direct-rows.log" | cut -c1-200
tar -C "$W" -czf "$OUT/gggggggg.tar.gz" w
