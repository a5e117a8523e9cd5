"""Ceilings a kernel cannot beat, and how close a measured case came.

A case with F FLOPs moving B bytes (minimum traffic) at intensity I = F / B
can run no faster than min(peak compute, I x memory bandwidth): the
roofline. Its fraction of the roofline is achieved / that bound.

Ceilings come from `kernel-bench calibrate` (torch's best matmul rate and a
large device-to-device copy, measured on this GPU and cached under the user's
cache directory), or else from the datasheet of a known GPU, labelled as such.
"""

import json
import math
import os
import re
from pathlib import Path

# Dense (no sparsity) tensor-core peaks and HBM bandwidth, SXM parts. Compute in TFLOP/s, memory in GB/s.
DATASHEETS = {
    "H200": {
        "label": "datasheet: NVIDIA H200 SXM",
        "compute_tflops": {"float16": 989.5, "bfloat16": 989.5, "tf32": 494.7, "float32": 66.9, "float8": 1979.0},
        "memory_gbps": 4800.0,
    },
    "H100": {
        "label": "datasheet: NVIDIA H100 SXM",
        "compute_tflops": {"float16": 989.5, "bfloat16": 989.5, "tf32": 494.7, "float32": 66.9, "float8": 1979.0},
        "memory_gbps": 3350.0,
    },
}

CALIBRATION_SCHEMA_VERSION = 1


def compute_key(dtype: str, precision: str | None) -> str:
    """Which compute ceiling applies: by input dtype, and for float32 by dot precision."""
    if dtype.startswith("float8"):
        return "float8"
    if dtype == "float32":
        return {"ieee": "float32", "tf32x3": "tf32x3"}.get(precision or "tf32", "tf32")
    return dtype


def compute_peak(ceilings: dict, key: str) -> float | None:
    peaks = ceilings.get("compute_tflops") or {}
    if key == "tf32x3" and "tf32x3" not in peaks and peaks.get("tf32"):
        return peaks["tf32"] / 3  # three tf32 products per product
    return peaks.get(key)


def datasheet_for(gpu_name: str | None) -> dict | None:
    """Datasheet ceilings for an H100/H200 SXM by name; None for anything else (PCIe/NVL differ)."""
    if not gpu_name:
        return None
    name = gpu_name.upper()
    if "PCIE" in name or "NVL" in name:
        return None
    for model, sheet in DATASHEETS.items():
        if re.search(rf"\b{model}\b", name):
            return {"source": sheet["label"], "gpu_name": gpu_name,
                    "compute_tflops": dict(sheet["compute_tflops"]), "memory_gbps": sheet["memory_gbps"]}
    return None


def cache_dir() -> Path:
    """Same place tilelab keeps its tuning cache: $TILELAB_CACHE_DIR or ~/.cache/tilelab."""
    return Path(os.environ.get("TILELAB_CACHE_DIR", Path.home() / ".cache" / "tilelab"))


def calibration_path(gpu_name: str) -> Path:
    slug = re.sub(r"[^a-z0-9]+", "-", gpu_name.lower()).strip("-") or "gpu"
    return cache_dir() / f"ceilings-{slug}.json"


def load_calibration(path: Path) -> dict | None:
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("schema_version") != CALIBRATION_SCHEMA_VERSION:
        return None
    # The ceilings themselves, as `calibrate` writes them: a file without them would fail later, mid-run.
    peaks = data.get("compute_tflops")
    if not isinstance(peaks, dict) or not all(isinstance(k, str) and _is_number(v) for k, v in peaks.items()):
        return None
    if not _is_number(data.get("memory_gbps")):
        return None
    return data


def _is_number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value) and value >= 0


def save_calibration(data: dict, path: Path) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n")
    tmp.replace(path)


def ceilings_for(gpu_name: str | None, explicit: Path | None = None) -> dict | None:
    """Calibrated ceilings if known (an explicit file first, then the cache), else the datasheet, else None."""
    for candidate in ([explicit] if explicit else []) + ([calibration_path(gpu_name)] if gpu_name else []):
        calibration = load_calibration(candidate)
        if calibration and (explicit or calibration.get("gpu_name") == gpu_name):
            return {
                "source": "calibrated",
                "gpu_name": calibration.get("gpu_name"),
                "compute_tflops": calibration["compute_tflops"],
                "memory_gbps": calibration["memory_gbps"],
                "measured_utc": calibration.get("measured_utc"),
                "datasheet": datasheet_for(calibration.get("gpu_name")),
            }
    return datasheet_for(gpu_name)


def attainable_tflops(ceilings: dict, key: str, flops: float, nbytes: float) -> float | None:
    """min(peak compute, intensity x bandwidth) in TFLOP/s; None when a ceiling is unknown."""
    peak = compute_peak(ceilings, key)
    bandwidth = ceilings.get("memory_gbps")
    if peak is None or bandwidth is None or nbytes <= 0:
        return None
    memory_bound = flops / nbytes * bandwidth / 1e3  # FLOP/B x GB/s = GFLOP/s
    return min(peak, memory_bound)


def roofline_fraction(ceilings: dict | None, key: str, flops: float, nbytes: float, ms: float) -> float | None:
    """Achieved rate / attainable rate for one case; for FLOP-free ops, achieved bandwidth / bandwidth."""
    if ceilings is None or ms <= 0:
        return None
    if flops <= 0:
        bandwidth = ceilings.get("memory_gbps")
        return nbytes / (ms * 1e-3) / 1e9 / bandwidth if bandwidth else None
    bound = attainable_tflops(ceilings, key, flops, nbytes)
    if not bound:
        return None
    return flops / (ms * 1e-3) / 1e12 / bound
