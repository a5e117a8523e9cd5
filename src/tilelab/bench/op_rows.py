"""Row ops: softmax and RMSNorm over the last dimension, shapes given as rows cols. Memory-bound: GB/s.

Each reads its input once and writes its output once at best (RMSNorm also reads its weight), and the
roofline is the copy bandwidth. Rows longer than one block (`tilelab.ops.rows.MAX_BLOCK`) take two passes and
read the row twice; the second read mostly hits L2.
"""

import torch

from tilelab.bench.registry import OpSpec, Variant, VariantOptions

SHAPES = (
    # attention scores and hidden states: many rows of a few thousand
    (16384, 1024), (8192, 4096), (4096, 8192),
    # a vocabulary-sized row (Llama 3's 128256 logits) over fewer rows: two passes
    (1024, 128256),
    # short rows, many of them; and a ragged width
    (262144, 128), (4096, 5000),
)
CHECK_SHAPES = ((7, 65), (3, 300), (64, 1))
EPS = 1e-6


def _randn(shape, dtype, device, generator, scale=1.0):
    return (torch.randn(shape, generator=generator, device=device, dtype=torch.float32) * scale).to(dtype)


def make_softmax_inputs(shape, dtype, device, generator):
    return (_randn(shape, dtype, device, generator, scale=4.0),)  # a wide spread: exp() must be shifted


def make_rmsnorm_inputs(shape, dtype, device, generator):
    rows, cols = shape
    return _randn(shape, dtype, device, generator), _randn((cols,), dtype, device, generator)


def softmax_reference(x):
    return torch.softmax(x.to(torch.float64), -1)  # on the inputs' device: the same values as on the host


def rmsnorm_reference(x, weight):
    h = x.to(torch.float64)
    return h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + EPS) * weight.to(torch.float64)


def flops(shape):
    rows, cols = shape
    return 4 * rows * cols  # a few operations per element; the rate that matters is GB/s


def bytes_softmax(shape, dtype):
    rows, cols = shape
    return 2 * rows * cols * dtype.itemsize


def bytes_rmsnorm(shape, dtype):
    rows, cols = shape
    return (2 * rows * cols + cols) * dtype.itemsize


def tolerance(dtype, precision):
    from tilelab.reference import tolerance as library_tolerance

    return library_tolerance(dtype, "ieee")


def softmax_variants(options: VariantOptions) -> list[Variant]:
    import tilelab

    found = [
        Variant("torch", lambda x: torch.softmax(x, -1), lambda x: {"library": "torch", "function": "torch.softmax"},
                baseline=True, description="torch.softmax(x, -1)"),
        Variant("tilelab", lambda x: tilelab.softmax(x, -1), lambda x: {"library": "tilelab", **_plan(x)},
                description="tilelab.softmax: rows per program by plan_rows"),
    ]
    if options.compile and options.on_gpu:
        compiled = torch.compile(lambda x: torch.softmax(x, -1), mode=options.compile_mode, dynamic=False)
        found.append(Variant("torch-compile", compiled, lambda x: {"library": "torch", "function": "torch.compile"},
                             description=f"torch.compile(mode={options.compile_mode!r})"))
    return found


def rmsnorm_variants(options: VariantOptions) -> list[Variant]:
    import tilelab

    def torch_rmsnorm(x, weight):
        return torch.nn.functional.rms_norm(x, (x.shape[-1],), weight, EPS)

    found = [
        Variant("torch", torch_rmsnorm, lambda x, w: {"library": "torch", "function": "torch.nn.functional.rms_norm"},
                baseline=True, description="torch.nn.functional.rms_norm"),
        Variant("tilelab", lambda x, w: tilelab.rmsnorm(x, w, EPS), lambda x, w: {"library": "tilelab", **_plan(x)},
                description="tilelab.rmsnorm: rows per program by plan_rows"),
    ]
    if options.compile and options.on_gpu:
        compiled = torch.compile(torch_rmsnorm, mode=options.compile_mode, dynamic=False)
        found.append(Variant("torch-compile", compiled, lambda x, w: {"library": "torch", "function": "torch.compile"},
                             description=f"torch.compile(mode={options.compile_mode!r})"))
    return found


def _plan(x):
    from tilelab.ops.rows import plan_rows

    rows, cols = x.shape
    plan = plan_rows(rows, cols, x.element_size(), (x.stride(0), x.stride(0)))
    return {"block": plan.block, "rows_per_program": plan.rows, "passes": 1 if plan.one_block else 2,
            "num_warps": plan.num_warps, "align": plan.align}


def _row_op(name, inputs, reference, bytes_moved, variants, description):
    return OpSpec(name=name, dims=("rows", "cols"), default_shapes=SHAPES, check_shapes=CHECK_SHAPES,
                  dtypes=("float16", "bfloat16", "float32"), make_inputs=inputs, reference=reference, flops=flops,
                  bytes_moved=bytes_moved, variants=variants, tolerance=tolerance, metric="gbps",
                  description=description)


OPS = (
    _row_op("softmax", make_softmax_inputs, softmax_reference, bytes_softmax, softmax_variants,
            "softmax over the last dimension of [rows, cols]"),
    _row_op("rmsnorm", make_rmsnorm_inputs, rmsnorm_reference, bytes_rmsnorm, rmsnorm_variants,
            "RMSNorm over the last dimension of [rows, cols], with a weight, eps 1e-6"),
)
