"""`kernel-bench calibrate`: measure this GPU's practical ceilings and cache them.

Memory: a large device-to-device copy (reads and writes each byte once, far
beyond L2), bytes moved = 2 x size. Compute: torch.matmul on large squares
per precision, best of several shapes. Both are what the hardware delivers
through vendor libraries, usually 70-90% of the datasheet: a kernel at 100%
of a calibrated ceiling matches cuBLAS at its best, not the marketing number.
"""

import torch

from tilelab.bench import environment, roofline, stats

COPY_BYTES = 1 << 30  # 1 GiB per buffer: over ten times any current L2
MATMUL_SHAPES = ((8192, 8192, 8192), (16384, 8192, 8192))
PRECISIONS = {  # ceiling key -> (dtype, allow_tf32)
    "float16": (torch.float16, False),
    "bfloat16": (torch.bfloat16, False),
    "tf32": (torch.float32, True),
    "float32": (torch.float32, False),
}


def _median_ms(fn, warmup: int, samples: int) -> float:
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(samples):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return stats.summarize(times)["median_ms"]


def copy_bandwidth_gbps(device: torch.device, nbytes: int = COPY_BYTES, samples: int = 20) -> float:
    src = torch.empty(nbytes, dtype=torch.uint8, device=device).random_(0, 255)
    dst = torch.empty_like(src)
    ms = _median_ms(lambda: dst.copy_(src), warmup=3, samples=samples)
    return stats.gbps(2 * nbytes, ms)


def matmul_tflops(device: torch.device, dtype: torch.dtype, allow_tf32: bool, samples: int = 10) -> dict:
    """Best torch.matmul rate over MATMUL_SHAPES, and which shape gave it."""
    saved = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = allow_tf32
    try:
        best = {"tflops": 0.0, "shape": None}
        for m, n, k in MATMUL_SHAPES:
            a = torch.randn((m, k), device=device).to(dtype)
            b = torch.randn((k, n), device=device).to(dtype)
            ms = _median_ms(lambda a=a, b=b: torch.matmul(a, b), warmup=3, samples=samples)
            rate = stats.tflops(2 * m * n * k, ms)
            if rate > best["tflops"]:
                best = {"tflops": rate, "shape": [m, n, k]}
            del a, b
        return best
    finally:
        torch.backends.cuda.matmul.allow_tf32 = saved


def fp8_tflops(device: torch.device, samples: int = 10) -> dict | None:
    """torch._scaled_mm in float8_e4m3fn, where the GPU and torch support it; None otherwise."""
    if not hasattr(torch, "float8_e4m3fn") or not hasattr(torch, "_scaled_mm"):
        return None
    if torch.cuda.get_device_capability(device) < (8, 9):
        return None
    m = n = k = 8192
    try:
        a = torch.randn((m, k), device=device).to(torch.float8_e4m3fn)
        b = torch.randn((n, k), device=device).to(torch.float8_e4m3fn).t()  # column-major B, as _scaled_mm wants
        one = torch.ones((), device=device)
        ms = _median_ms(lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16),
                        warmup=3, samples=samples)
    except (RuntimeError, TypeError):
        return None
    return {"tflops": stats.tflops(2 * m * n * k, ms), "shape": [m, n, k]}


def measure(device: torch.device) -> dict:
    """Every ceiling, as the calibration file stores it."""
    gpu = environment.gpu_info(device)
    compute, detail = {}, {}
    for key, (dtype, allow_tf32) in PRECISIONS.items():
        detail[key] = matmul_tflops(device, dtype, allow_tf32)
        compute[key] = detail[key]["tflops"]
    fp8 = fp8_tflops(device)
    if fp8:
        detail["float8"] = fp8
        compute["float8"] = fp8["tflops"]
    return {
        "schema_version": roofline.CALIBRATION_SCHEMA_VERSION,
        "tool": "kernel-bench calibrate",
        "gpu_name": gpu["name"],
        "measured_utc": environment.utc_now(),
        "command": environment.command_line(),
        "compute_tflops": compute,
        "memory_gbps": copy_bandwidth_gbps(device),
        "method": {
            "compute": "best median torch.matmul rate over shapes "
                       + ", ".join("x".join(map(str, shape)) for shape in MATMUL_SHAPES),
            "memory": f"median device-to-device copy of {COPY_BYTES >> 20} MiB, counting read + write",
        },
        "detail": detail,
        "datasheet": roofline.datasheet_for(gpu["name"]),
        "environment": environment.collect(device),
    }
