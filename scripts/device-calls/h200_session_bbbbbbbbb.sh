#!/bin/bash
# Device call BBBBBBBBB (twenty-eighth session): the implicit GEMM with its divisions by C_in, OW and OH done by
# multiplication and flat K steps' bounds tests unsigned (branch conv-flat-magic, 2070475: sm_90 SASS of the stem's
# flat tile 1480 -> 1096 instructions, the ragged layer's 4352 -> 2920), against main, on the shipped table's
# tiles (nothing tuned): fp16, the dense and the grouped default layers, trees in turns.
#   t0  the snapshot (main)
#   t1  src/ of 2070475 (branch conv-flat-magic)          -- device-carry/t1-src.tar
W=/tmp/wb9; rm -rf "$W"; mkdir -p "$W/w" "$W/src" "$W/t1"
tar -xf device-snapshot.tar -C "$W/src" && tar -xf device-carry/t1-src.tar -C "$W/t1" && cd "$W/src" || exit 1
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
run() {  # tree op tag
  tree="$W/src"; [ "$1" = t1 ] && tree="$W/t1"
  f="$W/w/h200-conv2d_bn_silu-$3-float16-magic-$1"
  PYTHONPATH=$tree/src:. TILELAB_CACHE_DIR="$W/w/tuning-cache-$1" timeout 80 $BENCH --op $2 --dtype float16 \
    --output "$f.json" > "$f.log" 2>&1
  echo "$1 $3 rc=$?"; grep -E "geometric" "$f.log" | cut -c1-110
  tar -C "$W" -czf "$OUT/bbbbbbbbb.tar.gz" w
}
run t0 conv2d_bn_silu dense
run t1 conv2d_bn_silu dense
run t1 conv2d_bn_silu-grouped grouped
run t0 conv2d_bn_silu-grouped grouped
ls "$W/w" | grep tuning-cache && echo "a cache was written: something was tuned" || echo "nothing reached the caches"
