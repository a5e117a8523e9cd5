"""Exercise 17 (lesson 6, then `python -m learning.explain conv`): a convolution as an implicit GEMM.

tilelab.conv2d_bn_silu computes a 2-D convolution as one matrix product C[M, N] = A[M, K] @ B[K, N] without ever
writing A: M is one row per output pixel, N one column per output channel, K one term per filter tap (r, s)
and input channel c. Each A[m, k] is an input value found by index arithmetic (src/tilelab/kernels/conv.py),
or 0 where the filter hangs over the image's edge (the padding). The batch norm after it becomes one scale and
one shift per output channel, applied to the accumulator before the store.

Implement the four functions, then run:  python -m learning.check implicit_gemm
Standard library only.
"""


def output_size(size, kernel, stride=1, padding=0, dilation=1):
    """How many output positions a filter of `kernel` taps makes along an input side of `size`: torch's rule.

    Dilation spreads the taps `dilation` apart, so the filter spans dilation * (kernel - 1) + 1 inputs; padding
    adds `padding` zeros at each end; the filter moves `stride` at a time and must fit entirely.

    output_size(56, 3, 1, 1) == 56; output_size(640, 3, 2, 1) == 320; output_size(12, 3, 1, 2, 2) == 12.
    """
    raise NotImplementedError("output_size: (size + 2 * padding - span) // stride + 1, span the dilated filter")


def gemm_sizes(batch, c_in, h, w, c_out, kh, kw, stride=1, padding=0, dilation=1):
    """(M, N, K) of the implicit GEMM: M = batch * OH * OW output pixels, N = C_out, K = KH * KW * C_in.

    gemm_sizes(32, 64, 56, 56, 64, 3, 3, 1, 1) == (100352, 64, 576).
    """
    raise NotImplementedError("gemm_sizes: rows are output pixels, columns output channels, K taps x channels")


def a_entry(m, k, batch, c_in, h, w, kh, kw, stride=1, padding=0, dilation=1):
    """Which input value A[m, k] is: (n, c, ih, iw), or None where it falls in the padding (A[m, k] = 0).

    Rows: m -> image n, output row oh, output column ow, in that order (m = (n * OH + oh) * OW + ow).
    Columns, in the kernel's order, taps outermost and channels innermost: k = (r * KW + s) * C_in + c.
    The input pixel: ih = oh * stride - padding + r * dilation, and iw likewise with ow, s.

    With batch=1, c_in=2, h=w=4, a 3x3 filter, padding 1: a_entry(5, 7, ...) == (0, 1, 1, 0) and
    a_entry(0, 0, ...) is None (pixel (0, 0)'s tap (0, 0) lands at (-1, -1)).
    """
    raise NotImplementedError("a_entry: split m into (n, oh, ow), k into (r, s, c), then find (ih, iw)")


def fold_batch_norm(gamma, var, eps, beta, mean, bias=0.0):
    """(scale, shift) with batch_norm(acc + bias) == acc * scale + shift for every accumulator value acc:

        batch_norm(z) = gamma * (z - mean) / sqrt(var + eps) + beta   (inference: running mean and variance)

    fold_batch_norm(2.0, 3.0, 0.0, 0.5, 1.0, 0.25) == (2 / sqrt(3), 0.5 - 0.75 * 2 / sqrt(3)).
    """
    raise NotImplementedError("fold_batch_norm: expand gamma * (acc + bias - mean) / sqrt(var + eps) + beta")
