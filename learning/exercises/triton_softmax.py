"""Exercise 11 (lesson 8): row softmax in Triton.

Write the kernel body and the launcher, then run:  python -m learning.check triton_softmax
"""

import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, x_row_stride, out_row_stride, BLOCK: tl.constexpr):
    """Program `row` writes softmax(x[row, :n_cols]) into out[row, :n_cols]."""
    # TODO: masked load (masked lanes must not change the max or the sum), subtract the max,
    #       tl.exp, divide by the sum, masked store.
    pass


def launch_softmax(x, out):
    """x and out are 2-D float32 tensors of the same shape, each with its own row stride."""
    raise NotImplementedError("launch_softmax: one program per row, pass both row strides")
