"""Rows per program, warps and the ALIGN hint for the row kernels (run on the H200).

    PYTHONPATH=src:. python scripts/h200_rows_probe.py OUT.json

Call YYYYYY measured softmax at 0.38x torch on 262144 rows of 128 (one program per row: 4 warps for 128
elements) and RMSNorm at 0.68x on rows of 5000 (not a multiple of 16 elements, so every load was 2 bytes).
Each variant below replaces `plan_rows` with one fixed plan, runs through tilelab.softmax / tilelab.rmsnorm
(replays included) and is timed with triton.testing.do_bench (L2 flushed before each call, median), next to
torch in the same process.
"""

import json
import sys

import torch
import triton

import tilelab
from tilelab.ops import rows as rows_op

SHORT = [(262144, 128), (65536, 512), (16384, 1024), (16384, 2048)]
LONG = [(8192, 4096), (4096, 5000), (4096, 8192)]
PLAN_ROWS = rows_op.plan_rows


def timed(fn) -> float:
    return triton.testing.do_bench(fn, warmup=25, rep=200, return_mode="median") * 1000.0


def variants(shape, dtype):
    rows, cols = shape
    size = torch.tensor([], dtype=dtype).element_size()
    default = PLAN_ROWS(rows, cols, size, (cols, cols))
    plans = {"default": default}
    tiles = [default.block, 2048, 4096, 8192, 16384] if default.one_block and default.block < 8192 else [default.block]
    for tile in dict.fromkeys(tiles):
        for warps in (4, 8, 16):
            base = PLAN_ROWS(rows, cols, size, (cols, cols), tile_elements=tile)
            plans[f"rows {base.rows} warps {warps}"] = rows_op.RowPlan(base.block, base.rows, base.one_block, warps,
                                                                       base.align)
    if default.align > 1:
        plans["no align"] = rows_op.RowPlan(default.block, default.rows, default.one_block, default.num_warps, 1)
    return plans


def probe(shape, dtype, results: list) -> None:
    x = (torch.randn(shape, device="cuda") * 4).to(dtype)
    w = torch.randn(shape[1], device="cuda").to(dtype)
    ops = {
        "softmax": (lambda: torch.softmax(x, -1), lambda: tilelab.softmax(x, -1)),
        "rmsnorm": (lambda: torch.nn.functional.rms_norm(x, (shape[1],), w, 1e-6), lambda: tilelab.rmsnorm(x, w, 1e-6)),
    }
    for op, (torch_fn, ours) in ops.items():
        want = torch_fn().float()
        torch_us = timed(torch_fn)
        print(f"== {op} {shape[0]}x{shape[1]} {str(dtype)[6:]}: torch {torch_us:.1f} us", flush=True)
        for name, plan in variants(shape, dtype).items():
            rows_op._REPLAYS.clear()
            rows_op.plan_rows = lambda *a, plan=plan, **k: plan
            try:
                error = (ours().float() - want).abs().max().item()
                us = timed(ours)
            except Exception as e:  # a plan that does not compile is a result too
                print(f"  {name:24s} failed: {type(e).__name__}: {str(e)[:100]}", flush=True)
                continue
            finally:
                rows_op.plan_rows = PLAN_ROWS
            print(f"  {name:24s} {us:7.1f} us  {torch_us / us:5.2f}x  max|err| {error:.1e}  {plan}", flush=True)
            results.append({"op": op, "shape": list(shape), "dtype": str(dtype), "variant": name, "plan": vars(plan),
                            "us": us, "torch_us": torch_us, "max_abs_error": error})


def main(out_path: str) -> None:
    results = []
    for shape in SHORT + LONG:
        probe(shape, torch.float16, results)
    with open(out_path, "w") as f:
        json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__, "triton": triton.__version__,
                   "results": results}, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
