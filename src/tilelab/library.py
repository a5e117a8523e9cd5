"""tilelab's ops registered with torch.library: `torch.ops.tilelab.matmul`.

The custom op carries a fake (meta) implementation, so torch.compile can
trace through it, and a backward, so autograd works:

    dA = dC @ B^T        dB = A^T @ dC

both computed by tilelab.matmul itself, then summed over any batch
dimensions that were broadcast in the forward pass. `tilelab.matmul` routes
here whenever an input requires grad; without grad it skips the dispatcher
(whose overhead would dominate small products).

The op always returns a contiguous tensor: a descriptor-path result with
padded rows is copied, since traced programs assume the fake's strides.
"""

import torch

from tilelab.ops import matmul as matmul_op

_DTYPES = {None: None, "float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32}


@torch.library.custom_op("tilelab::matmul", mutates_args=())
def matmul(a: torch.Tensor, b: torch.Tensor, out_dtype: str | None = None, precision: str | None = None,
           path: str | None = None, config: str | None = None) -> torch.Tensor:
    out = matmul_op.matmul(a, b, out_dtype=_DTYPES[out_dtype], precision=precision, path=path, config=config)
    return out if out.is_contiguous() else out.contiguous()


@matmul.register_fake
def _(a, b, out_dtype=None, precision=None, path=None, config=None):
    shape = torch.matmul(a, b).shape  # fake tensors: only the shape rules run
    return a.new_empty(shape, dtype=_DTYPES[out_dtype] or a.dtype)


def _setup_context(ctx, inputs, output):
    a, b, _, precision, path, config = inputs
    ctx.save_for_backward(a, b)
    ctx.options = {"precision": precision, "path": path, "config": config}


def _backward(ctx, grad):
    a, b = ctx.saved_tensors
    a2 = a.unsqueeze(0) if a.dim() == 1 else a
    b2 = b.unsqueeze(-1) if b.dim() == 1 else b
    # Put back the dimensions the forward removed for 1-D operands.
    g = grad.to(a.dtype)
    if b.dim() == 1:
        g = g.unsqueeze(-1)
    if a.dim() == 1:
        g = g.unsqueeze(-2)
    grad_a = grad_b = None
    options = dict(ctx.options)
    if options["path"] in ("registers", "pingpong"):
        options["path"] = None  # they take row-major A only, and the gradients multiply by transposes
    if ctx.needs_input_grad[0]:
        grad_a = matmul_op.matmul(g, b2.mT, **options).sum_to_size(a2.shape).reshape(a.shape)
    if ctx.needs_input_grad[1]:
        grad_b = matmul_op.matmul(a2.mT, g, **options).sum_to_size(b2.shape).reshape(b.shape)
    return grad_a, grad_b, None, None, None, None


matmul.register_autograd(_backward, setup_context=_setup_context)
