"""Reference solution for exercise 17: a convolution as an implicit GEMM."""

import math


def output_size(size, kernel, stride=1, padding=0, dilation=1):
    span = dilation * (kernel - 1) + 1  # the inputs one placement of the filter covers
    return (size + 2 * padding - span) // stride + 1


def gemm_sizes(batch, c_in, h, w, c_out, kh, kw, stride=1, padding=0, dilation=1):
    oh = output_size(h, kh, stride, padding, dilation)
    ow = output_size(w, kw, stride, padding, dilation)
    return batch * oh * ow, c_out, kh * kw * c_in


def a_entry(m, k, batch, c_in, h, w, kh, kw, stride=1, padding=0, dilation=1):
    oh_count = output_size(h, kh, stride, padding, dilation)
    ow_count = output_size(w, kw, stride, padding, dilation)
    n, rest = divmod(m, oh_count * ow_count)
    oh, ow = divmod(rest, ow_count)
    tap, c = divmod(k, c_in)  # channels innermost: one input pixel per run of channels
    r, s = divmod(tap, kw)
    ih = oh * stride - padding + r * dilation
    iw = ow * stride - padding + s * dilation
    if not (0 <= ih < h and 0 <= iw < w):
        return None  # the padding: the kernel's masked load reads 0
    return n, c, ih, iw


def fold_batch_norm(gamma, var, eps, beta, mean, bias=0.0):
    scale = gamma / math.sqrt(var + eps)
    return scale, beta + (bias - mean) * scale
