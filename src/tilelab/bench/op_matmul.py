"""The matmul entry: C[M, N] = A[M, K] @ B[K, N], shapes given as M N K."""

import contextlib

import torch

from tilelab.bench.registry import OpSpec, Variant, VariantOptions

DEFAULT_SHAPES = (
    # squares
    (512, 512, 512), (1024, 1024, 1024), (2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192),
    # LLM-style: MLP up and down projections at 4096 tokens, a wide-but-short K
    (4096, 11008, 4096), (4096, 4096, 11008), (8192, 8192, 1024),
    # skinny: decode-like M with N = K = 4096
    (16, 4096, 4096), (128, 4096, 4096),
    # odd: nothing divides, rows not 16-byte aligned
    (127, 255, 65), (1000, 1000, 1000),
)

# Small enough that Triton's interpreter (numpy, one program at a time) finishes in seconds,
# still covering partial tiles in every dimension.
CHECK_SHAPES = ((64, 64, 64), (127, 255, 65), (33, 70, 48))


def make_inputs(shape, dtype, device, generator):
    m, n, k = shape
    # Standard normal in float32, then rounded: never zeros, never a pattern a wrong index could match.
    a = torch.randn((m, k), generator=generator, device=device, dtype=torch.float32).to(dtype)
    b = torch.randn((k, n), generator=generator, device=device, dtype=torch.float32).to(dtype)
    return a, b


def reference(a, b):
    # float64 on the inputs' own device: on a GPU an 8192^3 float64 product takes milliseconds
    # there and minutes on the host CPU. The values are those of tilelab.reference.matmul_reference.
    return torch.matmul(a.to(torch.float64), b.to(torch.float64))


def flops(shape):
    m, n, k = shape
    return 2 * m * n * k


def bytes_moved(shape, dtype):
    m, n, k = shape
    return (m * k + k * n + m * n) * torch.empty((), dtype=dtype).element_size()


def tolerance(dtype, precision):
    from tilelab.reference import tolerance as library_tolerance

    return library_tolerance(dtype, precision)


@contextlib.contextmanager
def _torch_fp32_precision(precision: str | None):
    """torch.matmul in float32 as close as torch gets to tilelab's precision.

    tf32 allows TF32 tensor cores; ieee and tf32x3 (which torch lacks) keep full float32.
    """
    wanted = (precision or "tf32") == "tf32"
    saved = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = wanted
    try:
        yield
    finally:
        torch.backends.cuda.matmul.allow_tf32 = saved


def variants(options: VariantOptions) -> list[Variant]:
    import tilelab
    from tilelab.ops.matmul import describe_plan
    from tilelab.tuning import NAMED_CONFIGS

    fp32 = options.dtype == torch.float32
    precision = options.precision if fp32 else None
    kwargs = {"precision": precision} if precision else {}

    def torch_matmul(a, b):
        if not fp32:
            return torch.matmul(a, b)
        with _torch_fp32_precision(precision):
            return torch.matmul(a, b)

    def torch_plan(a, b):
        plan = {"library": "torch", "function": "torch.matmul"}
        if fp32:
            plan["allow_tf32"] = (precision or "tf32") == "tf32"
        return plan

    def tilelab_variant(name, description, default=True, **choice):
        return Variant(
            name=name,
            run=lambda a, b: tilelab.matmul(a, b, **kwargs, **choice),
            plan=lambda a, b: {"library": "tilelab", **describe_plan(a, b, **kwargs, **choice)},
            default=default,
            description=description,
        )

    found = [
        Variant("torch", torch_matmul, torch_plan, baseline=True, description="torch.matmul (cuBLAS)"),
        tilelab_variant("tilelab", "tilelab.matmul: default path, tuned config"),
        tilelab_variant("tilelab-fixed", "the lesson's fixed 32/64/32 config, GROUP_M=1", config="fixed"),
        tilelab_variant("tilelab-pointer", "pointer path, tuned config", path="pointer"),
        tilelab_variant("tilelab-descriptor", "tensor-descriptor path, tuned config", path="descriptor"),
        # Hopper's persistent TMA kernel; refused (unsupported) when rows are not 16-byte aligned.
        tilelab_variant("tilelab-persistent", "persistent TMA kernel, one program per SM", path="persistent"),
        tilelab_variant("tilelab-splitk", "split-K: K shared out among programs, the last one sums", default=False,
                        path="splitk"),
        # tf32 on Hopper with row-major operands (the default there when its tiles fill the SMs); unsupported elsewhere.
        tilelab_variant("tilelab-registers", "tf32: B's tiles to wgmma through registers, no copy (Gluon)",
                        default=False, path="registers"),
        # fp16/bf16 on Hopper (the default instead of the persistent kernel where K is short or its last wave fuller).
        tilelab_variant("tilelab-pingpong", "two warp groups taking turns on whole tiles, persistent (Gluon)",
                        default=False, path="pingpong"),
    ]
    # The caller's side of alignment: A and B copied once into rows on 128-byte lines, then multiplied.
    aligned = _kept_aligned()
    found += [
        Variant("tilelab-aligned", lambda a, b: tilelab.matmul(*aligned(a, b), **kwargs),
                lambda a, b: {"library": "tilelab", "inputs": "tilelab.to_aligned, copied once (not timed)",
                              **describe_plan(*aligned(a, b), **kwargs)},
                default=False, description="tilelab.matmul on A and B kept in line-aligned rows (tilelab.to_aligned)"),
        Variant("torch-aligned", lambda a, b: torch_matmul(*aligned(a, b)),
                lambda a, b: {**torch_plan(a, b), "inputs": "tilelab.to_aligned, copied once (not timed)"},
                default=False, description="torch.matmul on the same line-aligned copies"),
    ]
    for config_name in NAMED_CONFIGS:
        if config_name != "fixed":
            found.append(tilelab_variant(f"tilelab-config-{config_name}", f"named config {config_name!r}",
                                         default=False, config=config_name))
    if options.compile and options.on_gpu:
        found.append(_compiled_variant(options, fp32, precision))
    return found


def _kept_aligned():
    """`tilelab.to_aligned` copies of the inputs, made when new tensors arrive and reused while the same ones come
    back unchanged: the variants time what a caller who keeps A and B aligned pays per product, not the copy.
    Copies of one case's input sets are kept until a case of another shape arrives."""
    kept: dict[tuple, tuple] = {}

    def aligned(*inputs):
        key = tuple((x.data_ptr(), x._version, tuple(x.shape), x.stride(), x.dtype) for x in inputs)
        if key not in kept:
            if torch.cuda.is_available() and torch.cuda.is_current_stream_capturing():
                # A copy made here would be captured, and replayed inside every timed call.
                raise RuntimeError("the -aligned variants copy each input set once, before timing: under "
                                   "--timing graph the warm-up must see every input set (raise --warmup)")
            layout = tuple(x[2:] for x in key)  # shapes, strides and dtypes: which case this is
            if any(tuple(x[2:] for x in k) != layout for k in kept):
                kept.clear()  # another case: the last one's copies are not needed again
            kept[key] = tuple(aligned_as_stored(x) for x in inputs)
        return kept[key]
    return aligned


def aligned_as_stored(x: torch.Tensor) -> torch.Tensor:
    """`tilelab.to_aligned` of the memory `x` views: a transposed view (B stored [N, K], as bmm_nt passes it) gets
    its stored rows aligned and stays transposed, instead of turning into a row-major copy of another layout."""
    from tilelab.alignment import to_aligned

    if x.dim() >= 2 and x.stride(-1) != 1 and x.stride(-2) == 1:
        return to_aligned(x.mT).mT
    return to_aligned(x)


def _compiled_variant(options: VariantOptions, fp32: bool, precision: str | None) -> Variant:
    import torch._dynamo

    # One static graph per shape: the default limit of 8 recompiles would silently fall back to eager.
    for limit in ("cache_size_limit", "recompile_limit"):
        if hasattr(torch._dynamo.config, limit):
            setattr(torch._dynamo.config, limit, 256)
    compiled = torch.compile(lambda a, b: torch.matmul(a, b), mode=options.compile_mode, dynamic=False)

    def run(a, b):
        # The precision flag is set outside the compiled region, where dynamo would not see it change.
        if not fp32:
            return compiled(a, b)
        with _torch_fp32_precision(precision):
            return compiled(a, b)

    return Variant(
        "torch-compile", run,
        lambda a, b: {"library": "torch", "function": "torch.compile(torch.matmul)", "mode": options.compile_mode},
        description=f"torch.compile(mode={options.compile_mode!r})",
    )


OP = OpSpec(
    name="matmul",
    dims=("M", "N", "K"),
    default_shapes=DEFAULT_SHAPES,
    check_shapes=CHECK_SHAPES,
    dtypes=("float16", "bfloat16", "float32"),
    make_inputs=make_inputs,
    reference=reference,
    flops=flops,
    bytes_moved=bytes_moved,
    variants=variants,
    tolerance=tolerance,
    metric="tflops",
    description="C = A @ B (torch.matmul semantics), A [M, K], B [K, N]",
)
