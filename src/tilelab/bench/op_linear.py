"""The linear entries: activation(x @ weight.T + bias), nn.Linear's layout, shapes given as M N K.

`--op linear` is GELU (exact, torch's default); `--op linear-relu` and `--op linear-silu` the other two
activations `tilelab.linear` fuses. weight is stored [N, K] as nn.Linear keeps it; bias [N] in the input
dtype. The baseline is torch's two ops (F.linear, whose bias add cuBLAS fuses, then the activation); tilelab
fuses the bias and the activation into the matmul's epilogue (`tilelab.linear`), writing the output once.
"""

import torch

from tilelab.bench import op_matmul
from tilelab.bench.registry import OpSpec, Variant, VariantOptions

ACTIVATIONS = ("gelu", "relu", "silu")  # torch.nn.functional's names, as tilelab.linear takes them
DEFAULT_SHAPES = (
    # an MLP's up projection and a square layer at 4096 tokens; a short K; decode-sized rows
    (4096, 11008, 4096), (4096, 4096, 4096), (8192, 8192, 1024), (128, 4096, 4096), (16, 4096, 4096),
    # ragged
    (1000, 1000, 1000),
)
CHECK_SHAPES = ((64, 64, 64), (33, 70, 48), (7, 255, 65))


def make_inputs(shape, dtype, device, generator):
    m, n, k = shape
    x = torch.randn((m, k), generator=generator, device=device, dtype=torch.float32).to(dtype)
    weight = (torch.randn((n, k), generator=generator, device=device, dtype=torch.float32) / k**0.5).to(dtype)
    bias = torch.randn((n,), generator=generator, device=device, dtype=torch.float32).to(dtype)
    return x, weight, bias


def reference_for(activation: str):
    def reference(x, weight, bias):
        f = torch.nn.functional
        return getattr(f, activation)(f.linear(*(t.to(torch.float64) for t in (x, weight, bias))))
    return reference


def variants_for(activation: str):
    def variants(options: VariantOptions) -> list[Variant]:
        import tilelab
        from tilelab.ops.linear import describe_linear

        f = torch.nn.functional
        act = getattr(f, activation)
        precision = options.precision if options.dtype == torch.float32 else None

        def torch_linear(x, weight, bias):
            with op_matmul._torch_fp32_precision(precision):
                return act(f.linear(x, weight, bias))

        return [
            Variant("torch", torch_linear,
                    lambda *inputs: {"library": "torch", "function": f"F.{activation}(F.linear(...))"},
                    baseline=True, description=f"F.linear (cuBLAS, bias fused), then F.{activation}"),
            Variant("tilelab", lambda x, w, b: tilelab.linear(x, w, b, activation=activation, precision=precision),
                    lambda x, w, b: {"library": "tilelab", **describe_linear(x, w, b, activation=activation,
                                                                             precision=precision)},
                    description=f"tilelab.linear: bias and {activation} in the matmul's epilogue"),
            Variant("tilelab-unfused",
                    lambda x, w, b: act(tilelab.linear(x, w, b, precision=precision)),
                    lambda x, w, b: {"library": "tilelab", "function": f"F.{activation}(tilelab.linear(x, w, b))"},
                    default=False,
                    description=f"tilelab's matmul with the bias fused, {activation} as torch's own kernel"),
        ]
    return variants


def _linear_op(activation: str) -> OpSpec:
    return OpSpec(
        name="linear" if activation == "gelu" else f"linear-{activation}",
        dims=("M", "N", "K"),
        default_shapes=DEFAULT_SHAPES,
        check_shapes=CHECK_SHAPES,
        dtypes=("float16", "bfloat16", "float32"),
        make_inputs=make_inputs,
        reference=reference_for(activation),
        flops=op_matmul.flops,
        bytes_moved=op_matmul.bytes_moved,
        variants=variants_for(activation),
        tolerance=op_matmul.tolerance,
        metric="tflops",
        description=f"{activation}(x @ weight.T + bias), weight stored [N, K]",
    )


OPS = tuple(_linear_op(activation) for activation in ACTIVATIONS)
