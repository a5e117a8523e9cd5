"""tilelab's ops registered with torch.library: `torch.ops.tilelab.matmul`, `.conv2d_bn_silu`, `.softmax`, `.rmsnorm`
and `.residual_rmsnorm`.

The custom op carries a fake (meta) implementation, so torch.compile can
trace through it, and a backward, so autograd works:

    dA = dC @ B^T        dB = A^T @ dC

both computed by the op itself (so torch.compile can trace the backward too), then summed over any batch
dimensions that were broadcast in the forward pass. `tilelab.matmul` routes
here whenever an input requires grad; without grad it skips the dispatcher
(whose overhead would dominate small products).

The matmul op always returns a contiguous tensor: a descriptor-path result with
padded rows is copied, since traced programs assume the fake's strides.
"""

import torch

from tilelab import contracts
from tilelab.ops import matmul as matmul_op
from tilelab.recompute import gradients_by_recompute

_DTYPES = {None: None, "float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32}


def _out_dtype(name: str | None) -> torch.dtype | None:
    """The op's out_dtype, a string in its schema, as tilelab.matmul's torch.dtype."""
    if name not in _DTYPES:
        raise contracts.DTypeError("out_dtype must be one of " + ", ".join(map(repr, _DTYPES)) + f"; got {name!r}")
    return _DTYPES[name]


@torch.library.custom_op("tilelab::matmul", mutates_args=())
def matmul(a: torch.Tensor, b: torch.Tensor, out_dtype: str | None = None, precision: str | None = None,
           path: str | None = None, config: str | None = None) -> torch.Tensor:
    out = matmul_op.matmul(a, b, out_dtype=_out_dtype(out_dtype), precision=precision, path=path, config=config)
    return out if out.is_contiguous() else out.contiguous()


@matmul.register_fake
def _(a, b, out_dtype=None, precision=None, path=None, config=None):
    shape = torch.matmul(a, b).shape  # fake tensors: only the shape rules run
    return a.new_empty(shape, dtype=_out_dtype(out_dtype) or a.dtype)


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
        options["path"] = None  # registers wants row-major A and B, pingpong row-major A: b.mT, a.mT are not
    elif options["path"] is not None:
        g = g.contiguous()  # a forced TMA path cannot read an expanded gradient (.sum()'s has stride 0)
    # Through the op itself, not tilelab.ops.matmul: torch.compile traces a backward, and only the op has a fake.
    if ctx.needs_input_grad[0]:
        grad_a = matmul(g, b2.mT, **options).sum_to_size(a2.shape).reshape(a.shape)
    if ctx.needs_input_grad[1]:
        grad_b = matmul(a2.mT, g, **options).sum_to_size(b2.shape).reshape(b.shape)
    return grad_a, grad_b, None, None, None, None


matmul.register_autograd(_backward, setup_context=_setup_context)


# -- conv2d_bn_silu ----------------------------------------------------------------------------------------
# The forward is tilelab's fused kernel. The backward recomputes the forward with torch's own ops (cuDNN's
# convolution, inference-mode batch norm, SiLU) and differentiates that: the same function, so the same
# gradients, at the cost of one more convolution. Running statistics are buffers, never differentiated.


@torch.library.custom_op("tilelab::conv2d_bn_silu", mutates_args=())
def conv2d_bn_silu(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None, running_mean: torch.Tensor,
                   running_var: torch.Tensor, bn_weight: torch.Tensor | None, bn_bias: torch.Tensor | None,
                   eps: float, stride: list[int], padding: list[int], dilation: list[int],
                   precision: str | None = None, config: str | None = None, silu: bool = True,
                   groups: int = 1) -> torch.Tensor:
    from tilelab.ops import conv as conv_op

    return conv_op.conv2d_bn_silu(x, weight, bias, running_mean=running_mean, running_var=running_var,
                                  bn_weight=bn_weight, bn_bias=bn_bias, eps=eps, stride=tuple(stride),
                                  padding=tuple(padding), dilation=tuple(dilation), groups=groups,
                                  precision=precision, config=config, silu=silu)


@conv2d_bn_silu.register_fake
def _(x, weight, bias, running_mean, running_var, bn_weight, bn_bias, eps, stride, padding, dilation,
      precision=None, config=None, silu=True, groups=1):
    z = torch.nn.functional.conv2d(x, weight, None, stride=stride, padding=padding, dilation=dilation, groups=groups)
    channels_last = x.is_contiguous(memory_format=torch.channels_last) and not x.is_contiguous()
    return torch.empty_like(z, memory_format=torch.channels_last if channels_last else torch.contiguous_format)


def _conv_setup_context(ctx, inputs, output):
    (x, weight, bias, running_mean, running_var, bn_weight, bn_bias, eps, stride, padding, dilation, _precision,
     _config, silu, groups) = inputs
    ctx.save_for_backward(x, weight, bias, running_mean, running_var, bn_weight, bn_bias)
    ctx.options = {"eps": eps, "stride": stride, "padding": padding, "dilation": dilation, "silu": silu,
                   "groups": groups}


def _f32(t):
    return None if t is None else t.float()


def _conv_backward(ctx, grad):
    x, weight, bias, running_mean, running_var, bn_weight, bn_bias = ctx.saved_tensors
    o = ctx.options

    # In float32 throughout: the per-channel tensors may have another dtype than x (conv2d would refuse a float32
    # bias for a float16 x); each gradient comes back in its own tensor's dtype through the casts.
    def block(x_, weight_, bias_, gamma, beta):
        z = torch.nn.functional.conv2d(_f32(x_), _f32(weight_), _f32(bias_), stride=o["stride"],
                                       padding=o["padding"], dilation=o["dilation"], groups=o["groups"])
        z = torch.nn.functional.batch_norm(z, _f32(running_mean), _f32(running_var), _f32(gamma), _f32(beta),
                                           training=False, eps=o["eps"])
        return torch.nn.functional.silu(z) if o["silu"] else z

    needs = ctx.needs_input_grad
    dx, dw, db, dgamma, dbeta = gradients_by_recompute(block, (x, weight, bias, bn_weight, bn_bias),
                                                       [needs[i] for i in (0, 1, 2, 5, 6)], grad)
    return dx, dw, db, None, None, dgamma, dbeta, None, None, None, None, None, None, None, None


conv2d_bn_silu.register_autograd(_conv_backward, setup_context=_conv_setup_context)


# -- row ops -----------------------------------------------------------------------------------------------
# Forwards are tilelab's row kernels; backwards are written with torch's ops (softmax's in closed form,
# RMSNorm's by recomputing the forward in float32 and differentiating it).


@torch.library.custom_op("tilelab::softmax", mutates_args=())
def softmax(x: torch.Tensor, dim: int) -> torch.Tensor:
    from tilelab.ops import rows

    return rows.softmax(x, dim).contiguous()  # along another dim than the last, the kernel's is a moved view


@softmax.register_fake
def _(x, dim):
    return torch.empty_like(x, memory_format=torch.contiguous_format)


def _softmax_setup_context(ctx, inputs, output):
    ctx.dim = inputs[1]
    ctx.save_for_backward(output)


def _softmax_backward(ctx, grad):
    (y,) = ctx.saved_tensors
    y32, g32 = y.float(), grad.float()
    # d softmax: y * (dy - sum(dy * y)) along the softmax's dimension.
    return (y32 * (g32 - (g32 * y32).sum(ctx.dim, keepdim=True))).to(y.dtype), None


softmax.register_autograd(_softmax_backward, setup_context=_softmax_setup_context)


def _rmsnorm_in_torch(x, weight, eps):
    h = x.float()
    y = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)
    return y * weight.float() if weight is not None else y


@torch.library.custom_op("tilelab::rmsnorm", mutates_args=())
def rmsnorm(x: torch.Tensor, weight: torch.Tensor | None, eps: float) -> torch.Tensor:
    from tilelab.ops import rows

    return rows.rmsnorm(x, weight, eps)


@rmsnorm.register_fake
def _(x, weight, eps):
    return torch.empty_like(x, memory_format=torch.contiguous_format)


def _rmsnorm_setup_context(ctx, inputs, output):
    x, weight, eps = inputs
    ctx.eps = eps
    ctx.save_for_backward(x, weight)


def _rmsnorm_backward(ctx, grad):
    x, weight = ctx.saved_tensors
    dx, dw = gradients_by_recompute(lambda x_, w_: _rmsnorm_in_torch(x_, w_, ctx.eps), (x, weight),
                                    ctx.needs_input_grad[:2], grad)
    return dx, dw, None


rmsnorm.register_autograd(_rmsnorm_backward, setup_context=_rmsnorm_setup_context)


@torch.library.custom_op("tilelab::residual_rmsnorm", mutates_args=())
def residual_rmsnorm(x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor | None,
                     eps: float) -> tuple[torch.Tensor, torch.Tensor]:
    from tilelab.ops import rows

    return rows.rmsnorm(x, weight, eps, residual)


@residual_rmsnorm.register_fake
def _(x, residual, weight, eps):
    return torch.empty_like(x, memory_format=torch.contiguous_format), torch.empty_like(
        x, memory_format=torch.contiguous_format)


def _residual_setup_context(ctx, inputs, output):
    x, residual, weight, eps = inputs
    ctx.eps = eps
    ctx.save_for_backward(output[1], weight)  # h = x + residual: the norm's input


def _residual_backward(ctx, grad_y, grad_h):
    h, weight = ctx.saved_tensors
    needs_h = ctx.needs_input_grad[0] or ctx.needs_input_grad[1]
    dh, dw = gradients_by_recompute(lambda h_, w_: _rmsnorm_in_torch(h_, w_, ctx.eps), (h, weight),
                                    (needs_h, ctx.needs_input_grad[2]), grad_y)
    if dh is not None and grad_h is not None:
        dh = (dh.float() + grad_h.float()).to(h.dtype)  # h is also an output: the next layer's gradient flows in
    dx = dh if ctx.needs_input_grad[0] else None
    dr = dh if ctx.needs_input_grad[1] else None
    return dx, dr, dw, None


residual_rmsnorm.register_autograd(_residual_backward, setup_context=_residual_setup_context)
