"""Shared by the instrument tests: running the tools as their own processes, and a synthetic result file."""

import copy
import os
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"


def run_tool(module: str, *args: str, interpret: bool | None = None, env: dict | None = None,
             timeout: int = 300) -> subprocess.CompletedProcess:
    """`python -m module args...` in a fresh process (so TRITON_INTERPRET is decided before Triton loads)."""
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join([str(SRC), environment.get("PYTHONPATH", "")])
    environment["COLUMNS"] = "200"
    if interpret is True:
        environment["TRITON_INTERPRET"] = "1"
    elif interpret is False:
        environment.pop("TRITON_INTERPRET", None)
    environment.update(env or {})
    return subprocess.run([sys.executable, "-m", module, *args], capture_output=True, text=True,
                          env=environment, timeout=timeout)


def check_only(op: str, tmp_path: Path, *dtypes: str) -> dict:
    """`kernel-bench --op OP --check-only --variants all` on the interpreter, for these dtypes: its result document,
    validated against the schema (a failing run fails the calling test)."""
    import json

    from tilelab.bench import schema

    out = tmp_path / f"{op}.json"
    done = run_tool("tilelab.bench", "--op", op, "--dtype", *dtypes, "--check-only", "--variants", "all",
                    "--no-progress", "--output", str(out), interpret=False)
    assert done.returncode == 0, done.stdout + done.stderr
    document = json.loads(out.read_text())
    assert schema.validate(document) == []
    return document


def _variant(name, tflops, ms, *, baseline=False, status="ok", error=3e-4, speedup=None, fraction=None,
             plan=None, message=None):
    timed = status == "ok" and ms is not None
    samples = [ms * f for f in (1.02, 0.99, 1.0, 1.01, 0.98)] if timed else None
    return {
        "name": name, "baseline": baseline, "status": status, "error": error, "tolerance": 2e-3,
        "message": message, "plan": plan,
        "timing": {
            "mode": "events", "cache": "cold", "samples_ms": samples, "calls_per_sample": 1, "input_sets": 1,
            "median_ms": ms, "min_ms": min(samples), "max_ms": max(samples), "mean_ms": ms, "stdev_ms": 0.01 * ms,
            "p10_ms": min(samples), "p90_ms": max(samples),
        } if timed else None,
        "timing_error": None,
        "tflops": tflops if timed else None, "gbps": None, "speedup_vs_torch": speedup if timed else None,
        "roofline_fraction": fraction if timed else None,
    }


def synthetic_result(dtype: str = "float16") -> dict:
    """A schema-valid kernel-bench result with made-up numbers (labelled so), for report and schema tests."""
    plan = {"library": "tilelab", "path": "descriptor", "input_precision": "tf32",
            "config": {"block_m": 128, "block_n": 256, "block_k": 64, "group_m": 8, "num_warps": 8,
                       "num_stages": 3}}
    cases = []
    for order, (shape, torch_tf, tile_tf) in enumerate([((4096, 4096, 4096), 700.0, 650.0),
                                                       ((127, 255, 65), 0.5, 0.6),
                                                       ((16, 4096, 4096), 40.0, 30.0)]):
        m, n, k = shape
        flops, nbytes = 2 * m * n * k, 2 * (m * k + k * n + m * n)
        torch_ms = flops / torch_tf / 1e9
        tile_ms = flops / tile_tf / 1e9
        aligned = (k * 2) % 16 == 0 and (n * 2) % 16 == 0
        variants = [
            _variant("torch", torch_tf, torch_ms, baseline=True, speedup=1.0, fraction=0.7,
                     plan={"library": "torch", "function": "torch.matmul"}),
            _variant("tilelab", tile_tf, tile_ms, speedup=torch_ms / tile_ms, fraction=0.65, plan=plan),
            _variant("tilelab-fixed", tile_tf / 3, tile_ms * 3, speedup=torch_ms / tile_ms / 3, fraction=0.2),
            _variant("tilelab-descriptor", tile_tf, tile_ms, speedup=torch_ms / tile_ms, fraction=0.65)
            if aligned else
            _variant("tilelab-descriptor", None, None, status="unsupported", error=None,
                     message="AlignmentError: path='descriptor' needs 16-byte aligned rows"),
        ]
        cases.append({
            "op": "matmul", "metric": "tflops", "dims": {"M": m, "N": n, "K": k}, "shape": [m, n, k],
            "dtype": dtype, "precision": None, "flops": flops, "bytes": nbytes, "intensity": flops / nbytes,
            "order": [2, 0, 1][order], "roofline_bound_tflops": 989.5, "variants": variants,
        })
    cases[2]["variants"][2] = _variant("tilelab-fixed", None, None, status="wrong", error=0.5,
                                       message="relative error 0.5 > tolerance 0.002")
    return {
        "schema_version": 1, "tool": "kernel-bench", "created_utc": "2026-01-01T00:00:00+00:00",
        "command": "synthetic test fixture (not a measurement)", "argv": [],
        "settings": {"ops": ["matmul"], "dtypes": [dtype], "precision": None, "timing": "events", "cache": "cold",
                     "warmup": 10, "samples": 5, "seed": 0, "check_only": False, "compile": False,
                     "compile_mode": None, "variants": None, "graph_calls": None, "device": "cuda:0",
                     "interpreter": False},
        "environment": {
            "gpu": {"name": "NVIDIA H200 (synthetic)", "capability": "9.0", "sm_count": 132,
                    "l2_bytes": 60 * 2**20, "memory_bytes": 141 * 2**30, "index": 0, "driver_version": "570.00",
                    "sm_clock_mhz": 1980, "max_sm_clock_mhz": 1980, "memory_clock_mhz": 3201,
                    "max_memory_clock_mhz": 3201, "power_limit_w": 700, "persistence_mode": "Enabled"},
            "software": {"python": "3.12.0", "torch": "2.11.0", "cuda": "12.8", "triton": "3.6.0",
                         "numpy": "2.5.0", "platform": "Linux"},
            "triton_interpret": False,
        },
        "source": {"git_commit": "0" * 40, "git_dirty": False, "package_sha256": "a" * 64, "package_files": 20},
        "ceilings": {"source": "datasheet: NVIDIA H200 SXM", "gpu_name": "NVIDIA H200 (synthetic)",
                     "compute_tflops": {"float16": 989.5, "bfloat16": 989.5}, "memory_gbps": 4800.0},
        "cases": cases,
        "summary": {"cases": 3, "checked": 12, "timed": 10, "timing_errors": 0,
                    "by_status": {"ok": 10, "wrong": 1, "unsupported": 1, "failed": 0}},
    }


def without(document: dict, *path) -> dict:
    """A deep copy of `document` with the key at `path` removed."""
    changed = copy.deepcopy(document)
    target = changed
    for key in path[:-1]:
        target = target[key]
    del target[path[-1]]
    return changed
