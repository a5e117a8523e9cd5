"""Float64 references and the error budget every kernel is held to."""

import torch

# Relative Frobenius error allowed against the float64 reference, by the
# coarsest rounding step in play. Random data lands several times below
# these; a wrong index or a lost K step lands far above.
_TOLERANCE = {
    torch.float8_e4m3fn: 6e-2,
    torch.bfloat16: 1.6e-2,
    torch.float16: 2e-3,
    "tf32": 2e-3,
    "tf32x3": 2e-5,
    "ieee": 2e-5,
}


def matmul_reference(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """torch.matmul of the exact input values in float64 on the CPU."""
    return torch.matmul(a.detach().to("cpu", torch.float64), b.detach().to("cpu", torch.float64))


def relative_error(out: torch.Tensor, ref: torch.Tensor) -> float:
    """||out - ref|| / ||ref|| in float64; inf when out has a NaN or inf."""
    out64 = out.detach().to("cpu", torch.float64)
    ref64 = ref.detach().to("cpu", torch.float64)
    if out64.shape != ref64.shape:
        raise ValueError(f"shapes differ: out {tuple(out64.shape)} vs reference {tuple(ref64.shape)}")
    if not torch.isfinite(out64).all():
        return float("inf")
    denom = ref64.norm().item()
    diff = (out64 - ref64).norm().item()
    return diff / denom if denom > 0 else diff


def tolerance(dtype: torch.dtype, precision: str | None = None, out_dtype: torch.dtype | None = None) -> float:
    """Allowed relative error for inputs of `dtype` (float32 by `precision`) and a given output dtype."""
    if dtype == torch.float32:
        allowed = _TOLERANCE[precision or "tf32"]
    else:
        allowed = _TOLERANCE[dtype]
    if out_dtype is not None and out_dtype != torch.float32:
        allowed = max(allowed, _TOLERANCE[out_dtype])
    return allowed


def conv2d_bn_silu_reference(x, weight, bias=None, *, running_mean, running_var, bn_weight=None, bn_bias=None,
                             eps=1e-5, stride=1, padding=0, dilation=1, groups=1, silu=True) -> torch.Tensor:
    """SiLU(batch_norm(conv2d(x, weight, bias))), batch norm in inference mode, in float64 on the CPU, unfused:
    torch's own three ops, as a model would run them."""
    def f64(t):
        return None if t is None else t.detach().to("cpu", torch.float64)

    z = torch.nn.functional.conv2d(f64(x), f64(weight), f64(bias), stride=stride, padding=padding,
                                   dilation=dilation, groups=groups)
    z = torch.nn.functional.batch_norm(z, f64(running_mean), f64(running_var), f64(bn_weight), f64(bn_bias),
                                       training=False, eps=eps)
    return torch.nn.functional.silu(z) if silu else z


def softmax_reference(x, dim=-1) -> torch.Tensor:
    """torch.softmax of the exact input values in float64 on the CPU."""
    return torch.softmax(x.detach().to("cpu", torch.float64), dim)


def rmsnorm_reference(x, weight=None, eps=1e-6, residual=None) -> torch.Tensor:
    """RMSNorm over the last dimension in float64 on the CPU, of x + residual when a residual is given."""
    h = x.detach().to("cpu", torch.float64)
    if residual is not None:
        h = h + residual.detach().to("cpu", torch.float64)
    y = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)
    return y * weight.detach().to("cpu", torch.float64) if weight is not None else y
