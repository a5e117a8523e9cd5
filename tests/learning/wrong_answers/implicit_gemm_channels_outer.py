"""A's columns in unfold's order (channel outermost), not the kernel's (taps outermost)."""

from learning.solutions.implicit_gemm import fold_batch_norm, gemm_sizes, output_size  # noqa: F401


def a_entry(m, k, batch, c_in, h, w, kh, kw, stride=1, padding=0, dilation=1):
    oh_count = output_size(h, kh, stride, padding, dilation)
    ow_count = output_size(w, kw, stride, padding, dilation)
    n, rest = divmod(m, oh_count * ow_count)
    oh, ow = divmod(rest, ow_count)
    c, tap = divmod(k, kh * kw)
    r, s = divmod(tap, kw)
    ih, iw = oh * stride - padding + r * dilation, ow * stride - padding + s * dilation
    return (n, c, ih, iw) if 0 <= ih < h and 0 <= iw < w else None
