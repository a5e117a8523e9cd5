#!/bin/bash
# Device call SSSSSSSS (twenty-seventh session): the direct kernel's filter-row loop pipelined by Triton
# (`tl.range(KH, num_stages=S)`: the next rows' x loads go through cp.async into shared memory; sm_90 registers at
# 16x64 on 2 warps 72 -> 66 at 3x3, 110 -> 80 at 5x5), timed by scripts/h200_conv_direct_registers_probe.py
# (every tile with and without its caps, each launch replayed) on three trees in one call:
#   t0  the snapshot (main, `range(KH)`)
#   t1  2a43b4f (branch conv-direct-row-pipeline, num_stages=2)   -- device-carry/t1-src.tar
#   t2  t1 with num_stages=3 (sed on the extracted copy)
W=/tmp/wss; rm -rf "$W"; mkdir -p "$W/w" "$W/src" "$W/t1" "$W/t2"
tar -xf device-snapshot.tar -C "$W/src" && tar -xf device-carry/t1-src.tar -C "$W/t1" \
  && tar -xf device-carry/t1-src.tar -C "$W/t2" && cd "$W/src" || exit 1
sed -i 's/for r in tl.range(KH, num_stages=2):/for r in tl.range(KH, num_stages=3):/' "$W/t2/src/tilelab/kernels/conv.py"
grep -c "num_stages=3" "$W/t2/src/tilelab/kernels/conv.py"
for t in t0 t1 t2; do
  tree="$W/src"; [ "$t" != t0 ] && tree="$W/$t"
  log="$W/w/h200-conv-direct-row-pipeline-probe-$t.log"
  echo "tree $t" > "$log"
  PYTHONPATH=$tree/src:. timeout 75 python scripts/h200_conv_direct_registers_probe.py >> "$log" 2>&1
  echo "$t rc=$?"; sed -n '/best per layer/,$p' "$log"
  tar -C "$W" -czf "$OUT/ssssssss.tar.gz" w
done
