"""Exercise 10 (lesson 8): one program per row, out[r] = sum of row r of x.

Write the kernel body and the launcher, then run:  python -m learning.check triton_row_sum
"""

import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, n_cols, x_row_stride, BLOCK: tl.constexpr):
    """Program `row` sums the n_cols values of its row. BLOCK is a power of two >= n_cols.

    Row r starts at x_ptr + r * x_row_stride: rows may be further apart than n_cols.
    """
    # TODO: column offsets, a mask, a masked load (what should masked lanes hold?), tl.sum, a store.
    pass


def launch_row_sum(x, out):
    """x is a 2-D float32 tensor (rows may be padded), out has one entry per row."""
    raise NotImplementedError("launch_row_sum: one program per row; pick BLOCK with triton.next_power_of_2")
