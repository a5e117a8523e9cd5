"""One GPU call's worth of measurements for the Hopper kernels (persistent, split-K, fp8), against torch.

    TILELAB_OUT=$OUT python scripts/h200_hopper_probe.py [--quick] [--budget-s 220]

For every case: check the kernel's result first (float64 reference up to
2**33 FLOP, above that torch's float32 result with TF32 off), then time it
with triton.testing.do_bench (median) next to torch in the same process.
Prints one line per (case, variant) and writes `$TILELAB_OUT/hopper_probe.json`
(default "."), rewritten after every case so a cut-short run keeps what it measured.

A variant that fails to compile, runs out of resources or gives a wrong answer
is reported and skipped. Cases past --budget-s seconds are skipped and listed.
"""

import argparse
import json
import os
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

import torch  # noqa: E402
import triton  # noqa: E402

from tilelab.alignment import padded_row_stride  # noqa: E402
from tilelab.ops.matmul_hopper import (  # noqa: E402
    HopperConfig,
    device_sms,
    launch_persistent,
    launch_split_k,
    warp_specialize_compiles,
)
from tilelab.ops.matmul_plan import operand_layout  # noqa: E402
from tilelab.ops.scaled_matmul import scaled_matmul, scaled_matmul_reference  # noqa: E402
from tilelab.reference import matmul_reference, relative_error, tolerance  # noqa: E402

SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192), (4096, 11008, 4096), (8192, 8192, 1024)]  # M, N, K
SPLIT_SHAPES = [(16, 4096, 4096), (128, 4096, 4096)]
FP8_SHAPE = (8192, 8192, 8192)
REFERENCE_FLOP_LIMIT = 2**33
DEVICE = "cuda"


def _c(bm, bn, bk, warps, stages, **kw) -> HopperConfig:
    return HopperConfig(bm, bn, bk, 8, num_warps=warps, num_stages=stages, **kw)


PERSISTENT = [
    _c(128, 256, 64, 8, 3),
    _c(128, 256, 64, 8, 4),
    _c(128, 256, 64, 8, 3, epilogue_subtile=False),
    _c(128, 256, 64, 8, 3, flatten=True),
    _c(128, 256, 64, 4, 3, epilogue_subtile=False, warp_specialize=True),
    _c(128, 128, 64, 8, 4),
    _c(128, 128, 64, 4, 4, epilogue_subtile=False, warp_specialize=True),
]
QUICK_PERSISTENT = [PERSISTENT[0], PERSISTENT[2], PERSISTENT[4]]
# bm, bn, bk, stages, warps: short tiles for M=16, wgmma-sized ones for M=128
SPLIT_TILES = [(16, 64, 128, 4, 4), (32, 64, 128, 4, 4), (64, 128, 64, 4, 4), (128, 128, 64, 3, 8)]
SPLIT_KS = (2, 4, 8)
FP8 = [
    _c(128, 256, 128, 8, 3),
    _c(128, 256, 128, 8, 4),
    _c(128, 128, 128, 8, 4),
]


def bench(fn) -> float:
    if DEVICE != "cuda":  # --smoke on the interpreter: one call, wall time
        start = time.perf_counter()
        fn()
        return (time.perf_counter() - start) * 1e3
    return triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")


def bench_graph(fn) -> float | None:
    """Median ms of CUDA-graph replays of fn; None where capture fails or off the GPU."""
    if DEVICE != "cuda":
        return None
    try:
        return triton.testing.do_bench_cudagraph(fn, rep=100, return_mode="median")
    except Exception as e:
        print(f"      (graph timing failed: {type(e).__name__}: {str(e)[:120]})", flush=True)
        return None


def synchronize() -> None:
    if DEVICE == "cuda":
        torch.cuda.synchronize()


def tflops(flop: int, ms: float) -> float:
    return flop / ms / 1e9


class Probe:
    def __init__(self, out_path: Path, budget_s: float):
        self.out_path = out_path
        self.deadline = time.perf_counter() + budget_s
        self.rows: list[dict] = []
        self.skipped: list[str] = []
        self.meta = {
            "gpu": torch.cuda.get_device_name() if DEVICE == "cuda" else "interpreter",
            "sms": device_sms(torch.device(DEVICE)),
            "torch": torch.__version__, "triton": triton.__version__,
        }

    def out_of_time(self, label: str) -> bool:
        if time.perf_counter() > self.deadline:
            self.skipped.append(label)
            print(f"SKIP {label}: out of time budget", flush=True)
            return True
        return False

    def save(self) -> None:
        self.out_path.write_text(json.dumps({**self.meta, "rows": self.rows, "skipped_for_time": self.skipped},
                                            indent=1))

    def case(self, kind: str, dtype: str, shape, torch_ms: float, variants: dict) -> None:
        m, n, k = shape
        flop = 2 * m * n * k
        row = {"kind": kind, "dtype": dtype, "shape": [m, n, k], "torch_ms": torch_ms,
               "torch_tflops": tflops(flop, torch_ms), "variants": variants}
        for v in variants.values():
            if v.get("ms"):
                v["tflops"] = tflops(flop, v["ms"])
                v["vs_torch"] = torch_ms / v["ms"]
        ok = [(name, v) for name, v in variants.items() if v.get("ms")]
        best = max(ok, key=lambda kv: kv[1]["vs_torch"]) if ok else None
        row["best"] = best[0] if best else None
        self.rows.append(row)
        self.save()
        print(f"== {kind:10s} {dtype:9s} {m}x{n}x{k}: torch {row['torch_tflops']:7.1f} TFLOP/s"
              + (f"  best {best[0]} {best[1]['tflops']:7.1f} ({best[1]['vs_torch']:.3f}x)" if best else "  no variant"),
              flush=True)

    def variant(self, label: str, run, check, *, graph: bool = False) -> dict:
        """Run once, check, then time; every failure becomes a reported entry, never an exception.

        graph=True also times CUDA-graph replays (no host launch cost, warm L2), which tells
        a kernel that is slow from one whose Python launch path is.
        """
        start = time.perf_counter()
        try:
            run()
            synchronize()
            compile_s = time.perf_counter() - start
            err, allowed = check()
            if not err <= allowed:
                print(f"   {label:44s} WRONG: relative error {err:.3e} > {allowed:.1e}", flush=True)
                return {"status": "wrong", "rel_error": err, "allowed": allowed}
            ms = bench(run)
            graph_ms = bench_graph(run) if graph else None
            shown = f"  graph {graph_ms:8.4f} ms" if graph_ms else ""
            print(f"   {label:44s} {ms:8.4f} ms{shown}  err {err:.2e}  (first call {compile_s:.1f}s)", flush=True)
            return {"status": "ok", "ms": ms, "graph_ms": graph_ms, "rel_error": err, "first_call_s": compile_s}
        except Exception as e:  # compile errors, OutOfResources, CUDA errors: report and go on
            message = f"{type(e).__name__}: {str(e).strip().splitlines()[-1] if str(e).strip() else ''}"[:300]
            print(f"   {label:44s} FAILED {message}", flush=True)
            self._check_context()
            return {"status": "failed", "error": message, "trace": traceback.format_exc()[-2000:]}

    def _check_context(self) -> None:
        try:
            synchronize()
        except Exception as e:  # a sticky CUDA error: nothing after this can run
            print(f"CUDA context is broken ({e}); writing what was measured and stopping", flush=True)
            self.save()
            sys.exit(2)


def padded_empty(rows: int, cols: int, dtype) -> torch.Tensor:
    width = padded_row_stride(cols, torch.finfo(dtype).bits // 8)
    return torch.empty((rows, width), dtype=dtype, device=DEVICE)[:, :cols]


def reference_check(a, b, out, dtype):
    """(relative error, allowed): float64 for small problems, torch's float32 (TF32 off) for large ones."""
    m, k = a.shape
    n = b.shape[1]
    if 2 * m * n * k <= REFERENCE_FLOP_LIMIT:
        ref = matmul_reference(a, b)
    else:
        ref = torch.mm(a.float(), b.float())
    return relative_error(out, ref), tolerance(dtype)


def run_persistent(probe: Probe, dtypes, configs, b_k_major_too: bool) -> None:
    sms = device_sms(torch.device(DEVICE))
    for dtype_name in dtypes:
        dtype = getattr(torch, dtype_name)
        # The first shape once more with B stored [N, K] (read through a transposed descriptor).
        cases = [(s, False) for s in SHAPES] + ([(SHAPES[0], True)] if b_k_major_too else [])
        for (m, n, k), b_k_major in cases:
            label = f"persistent {dtype_name} {m}x{n}x{k}{' B K-major' if b_k_major else ''}"
            if probe.out_of_time(label):
                continue
            a = torch.randn(m, k, device=DEVICE).to(dtype)
            if b_k_major:
                b = torch.randn(n, k, device=DEVICE).to(dtype).t()
            else:
                b = torch.randn(k, n, device=DEVICE).to(dtype)
            c = padded_empty(m, n, dtype)
            a3, b3, c3 = a[None], b[None], c[None]
            a_l, b_l = operand_layout(a3), operand_layout(b3)
            torch_ms = bench(lambda a=a, b=b: torch.mm(a, b))
            variants = {}
            for cfg in configs:
                if not warp_specialize_compiles(cfg) or cfg.shared_memory_bytes(a.element_size(), c.element_size()) \
                        > 227 * 1024:
                    continue
                variants[cfg.label()] = probe.variant(
                    cfg.label(),
                    lambda cfg=cfg, a3=a3, b3=b3, c3=c3, a_l=a_l, b_l=b_l, m=m, n=n, k=k: launch_persistent(
                        a3, b3, c3, m, n, k, a_l, b_l, "tf32", cfg, sms),
                    lambda a=a, b=b, c=c, dtype=dtype: reference_check(a, b, c, dtype),
                )
            probe.case("persistent" + ("-bT" if b_k_major else ""), dtype_name, (m, n, k), torch_ms, variants)
            del a, b, c, a3, b3, c3


def run_split_k(probe: Probe, dtypes) -> None:
    for dtype_name in dtypes:
        dtype = getattr(torch, dtype_name)
        for m, n, k in SPLIT_SHAPES:
            label = f"split-K {dtype_name} {m}x{n}x{k}"
            if probe.out_of_time(label):
                continue
            a = torch.randn(m, k, device=DEVICE).to(dtype)
            b = torch.randn(k, n, device=DEVICE).to(dtype)
            c = torch.empty(m, n, device=DEVICE, dtype=dtype)
            a3, b3, c3 = a[None], b[None], c[None]
            layouts = {"a_layout": operand_layout(a3), "b_layout": operand_layout(b3)}
            torch_ms = bench(lambda a=a, b=b: torch.mm(a, b))
            torch_graph_ms = bench_graph(lambda a=a, b=b: torch.mm(a, b))
            print(f"   torch.mm graph {torch_graph_ms} ms", flush=True)
            variants = {}
            for bm, bn, bk, stages, warps in SPLIT_TILES:
                if bm > 2 * max(16, m) or (m <= 32 and bm > 32) or (m > 32 and bm < 64):
                    continue
                for split in SPLIT_KS:
                    cfg = HopperConfig(bm, bn, bk, 8, num_warps=warps, num_stages=stages, epilogue_subtile=False,
                                       split_k=split)
                    for path in ("pointer", "descriptor"):
                        extra = layouts if path == "descriptor" else {}
                        variants[f"{cfg.label()}-{path}"] = probe.variant(
                            f"{cfg.label()}-{path}",
                            lambda cfg=cfg, a3=a3, b3=b3, c3=c3, m=m, n=n, k=k, extra=extra: launch_split_k(
                                a3, b3, c3, m, n, k, "tf32", cfg, **extra),
                            lambda a=a, b=b, c=c, dtype=dtype: reference_check(a, b, c, dtype),
                            graph=True,
                        )
            probe.case("split-k", dtype_name, (m, n, k), torch_ms, variants)
            probe.rows[-1]["torch_graph_ms"] = torch_graph_ms
            probe.save()


def run_fp8(probe: Probe, configs) -> None:
    m, n, k = FP8_SHAPE
    if probe.out_of_time(f"fp8 {m}x{n}x{k}"):
        return
    fp8 = torch.float8_e4m3fn
    a = (torch.randn(m, k, device=DEVICE) * 2).to(fp8)
    b = (torch.randn(n, k, device=DEVICE) * 2).to(fp8).t()  # [K, N], K-major
    scale_a = torch.tensor([0.75], device=DEVICE)
    scale_b = torch.tensor([1.25], device=DEVICE)
    if DEVICE == "cuda":
        torch_fast = lambda: torch._scaled_mm(a, b, scale_a, scale_b, out_dtype=torch.bfloat16, use_fast_accum=True)
        torch_slow = lambda: torch._scaled_mm(a, b, scale_a, scale_b, out_dtype=torch.bfloat16, use_fast_accum=False)
    else:  # --smoke: a stand-in with the same meaning
        torch_fast = torch_slow = lambda: (torch.mm(a.float(), b.float()) * (scale_a * scale_b)).to(torch.bfloat16)
    # The inputs' exact values: fp8 products are exact in float32 and the sums nearly so (TF32 off).
    exact = (torch.mm(a.float(), b.float()) * (scale_a * scale_b)).to(torch.float64)
    if 2 * m * n * k <= REFERENCE_FLOP_LIMIT:
        exact = scaled_matmul_reference(a, b, scale_a, scale_b)
    allowed = tolerance(fp8, out_dtype=torch.bfloat16)

    def check(out):
        return relative_error(out, exact), allowed

    variants = {}
    torch_ms = bench(torch_fast)
    variants["torch._scaled_mm fast_accum=False"] = probe.variant("torch._scaled_mm fast_accum=False", torch_slow,
                                                                  lambda: check(torch_slow()))
    err_torch = relative_error(torch_fast(), exact)
    print(f"   torch._scaled_mm fast_accum=True error vs exact: {err_torch:.3e}", flush=True)
    for cfg in configs:
        for fast in (True, False):
            label = f"{cfg.label()} fast_accum={fast}"
            variants[label] = probe.variant(
                label,
                lambda cfg=cfg, fast=fast: scaled_matmul(a, b, scale_a, scale_b, out_dtype=torch.bfloat16,
                                                         use_fast_accum=fast, config=cfg),
                lambda cfg=cfg, fast=fast: check(scaled_matmul(a, b, scale_a, scale_b, out_dtype=torch.bfloat16,
                                                               use_fast_accum=fast, config=cfg)),
            )
            if variants[label].get("status") == "ok":
                ours = scaled_matmul(a, b, scale_a, scale_b, out_dtype=torch.bfloat16, use_fast_accum=fast, config=cfg)
                variants[label]["rel_diff_vs_torch_fast"] = relative_error(ours, torch_fast().to(torch.float64))
    probe.case("fp8", "float8_e4m3fn", (m, n, k), torch_ms, variants)
    probe.rows[-1]["torch_fast_rel_error"] = err_torch
    probe.save()


def _smoke_setup() -> None:
    global DEVICE, SHAPES, SPLIT_SHAPES, FP8_SHAPE, PERSISTENT, QUICK_PERSISTENT, SPLIT_TILES, FP8
    if os.environ.get("TRITON_INTERPRET") != "1":
        sys.exit("--smoke needs TRITON_INTERPRET=1 set before the script starts")
    DEVICE = "cpu"
    SHAPES, SPLIT_SHAPES, FP8_SHAPE = [(64, 96, 48)], [(16, 64, 96)], (64, 64, 64)
    small = HopperConfig(32, 32, 16, 2, num_warps=4, num_stages=1)
    PERSISTENT = QUICK_PERSISTENT = [small, HopperConfig(32, 32, 16, 2, num_warps=4, num_stages=1,
                                                         epilogue_subtile=False, warp_specialize=True)]
    SPLIT_TILES = [(16, 32, 16, 1, 4)]
    FP8 = [HopperConfig(32, 32, 32, 2, num_warps=4, num_stages=1)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dtypes", default="float16,bfloat16")
    parser.add_argument("--quick", action="store_true", help="three persistent variants, one fp8 config")
    parser.add_argument("--budget-s", type=float, default=220.0, help="skip cases that would start after this")
    parser.add_argument("--only", default="persistent,splitk,fp8")
    parser.add_argument("--smoke", action="store_true",
                        help="tiny shapes on Triton's interpreter (TRITON_INTERPRET=1, CPU): checks this script runs")
    args = parser.parse_args()
    if args.smoke:
        _smoke_setup()
    elif not torch.cuda.is_available():
        sys.exit("h200_hopper_probe.py needs a CUDA GPU (or --smoke with TRITON_INTERPRET=1)")
    torch.backends.cuda.matmul.allow_tf32 = False  # float32 references stay float32
    out_dir = Path(os.environ.get("TILELAB_OUT", "."))
    out_dir.mkdir(parents=True, exist_ok=True)
    probe = Probe(out_dir / "hopper_probe.json", args.budget_s)
    print(f"{probe.meta}", flush=True)
    # The interpreter's bf16 dot is unreliable: the smoke run checks fp16 only.
    dtypes = ["float16"] if args.smoke else args.dtypes.split(",")
    only = args.only.split(",")
    started = time.perf_counter()
    if "persistent" in only:
        run_persistent(probe, dtypes, QUICK_PERSISTENT if args.quick else PERSISTENT, b_k_major_too=not args.quick)
    if "splitk" in only:
        run_split_k(probe, dtypes)
    if "fp8" in only:
        run_fp8(probe, FP8[:1] if args.quick else FP8)
    probe.meta["wall_s"] = time.perf_counter() - started
    probe.save()
    print(f"wrote {probe.out_path} in {probe.meta['wall_s']:.0f}s", flush=True)


if __name__ == "__main__":
    main()
