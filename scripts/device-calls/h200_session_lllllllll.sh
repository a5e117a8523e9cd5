#!/bin/bash
# Device call LLLLLLLLL (thirtieth session): every matmul kernel variant at the current code, for the kernel
# variants table of docs/PERFORMANCE.md (its numbers were the tenth to twelfth sessions'). From the shipped table,
# nothing tuned; torch in the same run, and the cuBLAS kernels torch ran.
W=/tmp/wl9; rm -rf "$W"; mkdir -p "$W/w" "$W/src"
tar -xf device-snapshot.tar -C "$W/src" && cd "$W/src" || exit 1
export PYTHONPATH=src:.
start=$SECONDS
BENCH="python -m tilelab.bench --ceilings results/h200-calibration.json --no-progress --samples 30 --rounds 5"
run() {  # name, then kernel-bench arguments
  local f="$W/w/h200-matmul-variants-$1-session30"; shift
  timeout 150 $BENCH "$@" --output "$f.json" > "$f.log" 2>&1
  echo "$(basename "$f") rc=$? $((SECONDS - start)) s"; grep -E "│|geometric" "$f.log" | cut -c1-160
  tar -C "$W" -czf "$OUT/lllllllll.tar.gz" w
}
run float16 --op matmul --dtype float16 --shape 4096 4096 4096 --shape 8192 8192 1024 --torch-kernels \
  --variants torch,tilelab,tilelab-fixed,tilelab-pointer,tilelab-descriptor,tilelab-persistent,tilelab-pingpong
run float16-skinny --op matmul --dtype float16 --shape 16 4096 4096 --torch-kernels --variants torch,tilelab,tilelab-splitk
run tf32 --op matmul --dtype float32 --precision tf32 --shape 4096 4096 4096 --torch-kernels \
  --variants torch,tilelab,tilelab-registers,tilelab-descriptor
run fp8 --op scaled_matmul --shape 8192 8192 8192 --torch-kernels
