"""The scaled_matmul entry: fp8 C[M, N] = (A @ B) * scale_a * scale_b in bfloat16, shapes given as M N K.

A is float8_e4m3fn [M, K] row-major; B is float8_e4m3fn [K, N] stored K-major
(a row-major [N, K] viewed transposed), as torch._scaled_mm and Hopper's fp8
wgmma want it. The scales are per-tensor float32.
"""

import functools

import torch

from tilelab.bench.registry import OpSpec, Unsupported, Variant, VariantOptions

DEFAULT_SHAPES = ((8192, 8192, 8192), (4096, 4096, 4096), (4096, 11008, 4096), (8192, 8192, 1024))
# For the interpreter: ragged M and N tiles, K a multiple of 16 (TMA and torch._scaled_mm both need it).
CHECK_SHAPES = ((64, 64, 64), (96, 80, 48), (33, 48, 32))

OUT_DTYPE = torch.bfloat16
# Not 1.0, and not equal: a kernel that drops or reuses a scale is off by a visible factor.
SCALE_A, SCALE_B = 0.75, 1.25


def make_inputs(shape, dtype, device, generator):
    m, n, k = shape
    a = torch.randn((m, k), generator=generator, device=device, dtype=torch.float32).to(dtype)
    b = torch.randn((n, k), generator=generator, device=device, dtype=torch.float32).to(dtype).t()  # K-major
    scale_a = torch.full((), SCALE_A, dtype=torch.float32, device=device)
    scale_b = torch.full((), SCALE_B, dtype=torch.float32, device=device)
    return a, b, scale_a, scale_b


def reference(a, b, scale_a, scale_b):
    if a.device.type == "cpu":
        from tilelab.ops.scaled_matmul import scaled_matmul_reference

        return scaled_matmul_reference(a, b, scale_a, scale_b)
    # The same float64 values computed on the GPU: on the host an 8192^3 float64 product takes minutes.
    return (a.to(torch.float64) @ b.to(torch.float64)) * (scale_a.double() * scale_b.double())


def flops(shape):
    m, n, k = shape
    return 2 * m * n * k


def bytes_moved(shape, dtype):
    m, n, k = shape
    return (m * k + k * n) * torch.empty((), dtype=dtype).element_size() + m * n * OUT_DTYPE.itemsize


def tolerance(dtype, precision):
    from tilelab.reference import tolerance as library_tolerance

    return library_tolerance(dtype, out_dtype=OUT_DTYPE)


def available() -> bool:
    return hasattr(torch, "float8_e4m3fn") and hasattr(torch, "_scaled_mm")


@functools.cache
def _capability(index: int) -> tuple[int, int]:
    return torch.cuda.get_device_capability(index)


def _require_fp8_hardware(device: torch.device, minimum: tuple[int, int], who: str) -> None:
    if device.type != "cuda":
        return
    # Cached: this runs inside every timed eager call.
    capability = _capability(device.index if device.index is not None else torch.cuda.current_device())
    if capability < minimum:
        raise Unsupported(f"{who} needs sm_{minimum[0]}{minimum[1]} or newer; this GPU is "
                          f"sm_{capability[0]}{capability[1]}")


def _torch_variant(name: str, fast_accum: bool, baseline: bool, default: bool) -> Variant:
    def run(a, b, scale_a, scale_b):
        _require_fp8_hardware(a.device, (8, 9), "torch._scaled_mm")
        if a.is_cuda and (a.shape[1] % 16 or b.shape[1] % 16):
            raise Unsupported("torch._scaled_mm needs K and N to be multiples of 16 on a GPU")
        return torch._scaled_mm(a, b, scale_a=scale_a, scale_b=scale_b, out_dtype=OUT_DTYPE,
                                use_fast_accum=fast_accum)

    function = f"torch._scaled_mm(out_dtype=torch.bfloat16, use_fast_accum={fast_accum})"
    return Variant(name, run, lambda *inputs: {"library": "torch", "function": function}, baseline=baseline,
                   default=default, description=function)


def _tilelab_variant(name: str, fast_accum: bool, description: str, config=None, default: bool = True) -> Variant:
    from tilelab.ops import scaled_matmul as op

    def run(a, b, scale_a, scale_b):
        _require_fp8_hardware(a.device, (9, 0), "tilelab's fp8 kernel (fp8 wgmma and TMA)")
        try:
            return op.scaled_matmul(a, b, scale_a, scale_b, out_dtype=OUT_DTYPE, use_fast_accum=fast_accum,
                                    config=config)
        except Exception as exc:
            if a.device.type == "cpu" and not _is_contract_error(exc):
                # The GPU is the real test; on a CPU an interpreter gap is not a wrong kernel.
                raise Unsupported(f"Triton's interpreter could not run the fp8 kernel here: "
                                  f"{type(exc).__name__}: {exc}") from exc
            raise

    def plan(a, b, scale_a, scale_b):
        chosen = config or op.choose_config(a.device, OUT_DTYPE, a.shape[0], b.shape[1], a.shape[1], fast_accum)
        return {"library": "tilelab", "function": "tilelab.ops.scaled_matmul.scaled_matmul", "path": "persistent",
                "use_fast_accum": fast_accum, "out_dtype": "bfloat16", "config": chosen.as_dict()}

    return Variant(name, run, plan, default=default, description=description)


def _is_contract_error(exc: BaseException) -> bool:
    from tilelab.contracts import ContractError

    return isinstance(exc, ContractError)


def variants(options: VariantOptions) -> list[Variant]:
    from tilelab.ops.matmul_hopper import FP8_CANDIDATES

    # Speedups are against torch's fast accumulation: tilelab's default variant accumulates the same way.
    found = [
        _torch_variant("torch", fast_accum=True, baseline=True, default=True),
        _tilelab_variant("tilelab", True, "scaled_matmul(use_fast_accum=True): fp8 wgmma accumulator over all K"),
        _tilelab_variant("tilelab-promoted", False,
                         "scaled_matmul(use_fast_accum=False): accumulator promoted to float32 every BLOCK_K"),
        _torch_variant("torch-promoted", fast_accum=False, baseline=False, default=False),
    ]
    for config in FP8_CANDIDATES:
        found.append(_tilelab_variant(f"tilelab-config-{config.label()}", True, f"fast accumulation, {config.label()}",
                                      config=config, default=False))
    return found


OP = OpSpec(
    name="scaled_matmul",
    dims=("M", "N", "K"),
    default_shapes=DEFAULT_SHAPES,
    check_shapes=CHECK_SHAPES,
    dtypes=("float8_e4m3fn",),
    make_inputs=make_inputs,
    reference=reference,
    flops=flops,
    bytes_moved=bytes_moved,
    variants=variants,
    tolerance=tolerance,
    metric="tflops",
    available=available,
    compile_baseline=False,  # torch.compile of torch._scaled_mm is the same cuBLASLt call
    description="fp8 C = (A @ B) * scale_a * scale_b (torch._scaled_mm), A [M, K], B [K, N] K-major, bf16 out",
)
