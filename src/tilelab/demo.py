"""The main job: run tilelab's kernels (matmul, then linear, the convolution block and the row ops) and verify
every result against float64.

On a machine with a CUDA GPU the kernels run there; otherwise on Triton's
interpreter on the CPU (slower, same kernels, small shapes).
"""

import os
import sys
import time

import torch

ON_GPU = torch.cuda.is_available()
if not ON_GPU:
    os.environ.setdefault("TRITON_INTERPRET", "1")  # before triton is imported

import tilelab  # noqa: E402
from tilelab.ops.matmul import describe_plan  # noqa: E402
from tilelab.ops.rows import plan_rows  # noqa: E402
from tilelab.reference import (  # noqa: E402
    conv2d_bn_silu_reference,
    matmul_reference,
    relative_error,
    rmsnorm_reference,
    softmax_reference,
    tolerance,
)

CPU_CASES = [
    # (label, a shape, b shape, dtype, options)
    ("seed example", (2, 3), (3, 2), torch.float32, {}),
    ("ragged", (127, 65), (65, 255), torch.float16, {}),
    ("pointer, fixed 32/64/32", (127, 65), (65, 255), torch.float16, {"path": "pointer", "config": "fixed"}),
    ("descriptor, padded rows", (64, 64), (64, 96), torch.float16, {"path": "descriptor"}),
    ("transposed B", (96, 64), ("t", 80, 64), torch.float16, {}),
    ("batched broadcast", (3, 1, 5, 7), (4, 7, 6), torch.float32, {}),
    ("fp32 tf32", (70, 50), (50, 90), torch.float32, {"precision": "tf32"}),
    ("fp32 tf32x3", (70, 50), (50, 90), torch.float32, {"precision": "tf32x3"}),
    ("fp32 ieee", (70, 50), (50, 90), torch.float32, {"precision": "ieee"}),
]
GPU_CASES = CPU_CASES + [
    ("bf16 4096^3", (4096, 4096), (4096, 4096), torch.bfloat16, {}),
    ("fp16 4096x11008x4096", (4096, 4096), (4096, 11008), torch.float16, {}),
    ("skinny M=16", (16, 4096), (4096, 4096), torch.bfloat16, {}),
]


def _operand(shape, dtype, device, gen):
    if shape[0] == "t":  # stored transposed
        return torch.randn(shape[1:], generator=gen).to(device, dtype).t()
    return torch.randn(shape, generator=gen).to(device, dtype)


def _dims(x: torch.Tensor) -> str:
    return "x".join(map(str, x.shape)) + ("ᵀ" if x.dim() == 2 and x.stride(0) == 1 and x.shape[1] > 1 else "")


def run_cases(cases, device) -> list[dict]:
    gen = torch.Generator().manual_seed(int.from_bytes(os.urandom(4), "little"))
    rows = []
    for label, a_shape, b_shape, dtype, options in cases:
        a = _operand(a_shape, dtype, device, gen)
        b = _operand(b_shape, dtype, device, gen)
        start = time.perf_counter()
        out = tilelab.matmul(a, b, **options)
        if ON_GPU:
            torch.cuda.synchronize()
        seconds = time.perf_counter() - start
        err = relative_error(out, matmul_reference(a, b))
        allowed = tolerance(dtype, options.get("precision"))
        plan = describe_plan(a, b, **options)
        rows.append({
            "case": label, "shape": f"{_dims(a)} @ {_dims(b)}", "dtype": str(dtype)[6:],
            "path": plan["path"], "error": err, "allowed": allowed, "ok": err <= allowed, "seconds": seconds,
        })
    return rows


def run_other_ops(device) -> list[dict]:
    """One small case of each other op: linear with a fused GELU, the convolution block, softmax, RMSNorm."""
    gen = torch.Generator().manual_seed(int.from_bytes(os.urandom(4), "little"))

    def randn(*shape, dtype=torch.float16):
        return torch.randn(shape, generator=gen).to(device, dtype)

    x, w, bias = randn(33, 64), randn(48, 64) / 8, randn(48)
    f64 = [t.double().cpu() for t in (x, w, bias)]
    cases = [("linear + bias + gelu", "33x64 @ (48x64)ᵀ", "fused epilogue",
              tilelab.linear(x, w, bias, activation="gelu"),
              torch.nn.functional.gelu(torch.nn.functional.linear(*f64)))]
    image, filters = randn(2, 8, 9, 9), randn(16, 8, 3, 3) / 8
    bn = {"running_mean": randn(16, dtype=torch.float32), "running_var": randn(16, dtype=torch.float32).abs() + 0.5,
          "bn_weight": randn(16, dtype=torch.float32), "bn_bias": randn(16, dtype=torch.float32)}
    cases.append(("conv 3x3 + batch norm + SiLU", "2x8x9x9 * 16x8x3x3", "implicit GEMM",
                  tilelab.conv2d_bn_silu(image, filters, **bn, padding=1),
                  conv2d_bn_silu_reference(image, filters, **bn, padding=1)))
    rows_in, gamma = randn(5, 300) * 4, randn(300)
    tile = f"{plan_rows(5, 300, rows_in.element_size()).rows} rows per program"
    cases.append(("softmax", "5x300", tile, tilelab.softmax(rows_in), softmax_reference(rows_in)))
    cases.append(("rmsnorm", "5x300", tile, tilelab.rmsnorm(rows_in, gamma), rmsnorm_reference(rows_in, gamma)))
    results = []
    for label, shape, path, out, ref in cases:
        err, allowed = relative_error(out, ref), tolerance(torch.float16)
        results.append({"case": label, "shape": shape, "dtype": "float16", "path": path, "error": err,
                        "allowed": allowed, "ok": err <= allowed, "seconds": 0.0})
    return results


def print_table(rows, where: str) -> None:
    headers = ["case", "shape", "dtype", "path", "rel. error", "allowed", "verified"]
    cells = [[r["case"], r["shape"], r["dtype"], r["path"], f"{r['error']:.1e}", f"{r['allowed']:.0e}",
              "yes" if r["ok"] else "NO"] for r in rows]
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        print(f"tilelab on {where}, checked against a float64 reference")
        for row in [headers, *cells]:
            print("  ".join(str(c) for c in row))
        return
    table = Table(title=f"tilelab on {where}, checked against a float64 reference")
    for h in headers:
        table.add_column(h)
    for row in cells:
        table.add_row(*row, style=None if row[-1] == "yes" else "bold red")
    Console().print(table)


def main() -> int:
    where = torch.cuda.get_device_name() if ON_GPU else "Triton's interpreter (CPU)"
    device = "cuda" if ON_GPU else "cpu"
    rows = run_cases(GPU_CASES if ON_GPU else CPU_CASES, device)
    print_table(rows, where)
    others = run_other_ops(device)
    print_table(others, where)
    rows += others
    failed = [r["case"] for r in rows if not r["ok"]]
    if failed:
        print(f"FAILED: {', '.join(failed)}")
        return 1
    print(f"all {len(rows)} results verified. Next: `make test`, `python -m learning.check --list`, "
          "`kernel-doctor`.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
