"""Exercise 9 (lesson 8): your first Triton kernel, out = x + y.

Write the kernel body and the launcher, then run:  python -m learning.check triton_add
Without a GPU the checker runs your kernel in Triton's interpreter (TRITON_INTERPRET=1).
"""

import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """Program pid handles elements pid*BLOCK ... pid*BLOCK + BLOCK - 1 of the n elements."""
    # TODO: offsets of this program, a mask for the tail, masked loads of x and y, a masked store.
    pass


def launch_add(x, y, out, block=1024):
    """Launch add_kernel over 1-D tensors so that out[i] = x[i] + y[i] for every i.

    `out` is allocated by the caller; `block` is the BLOCK each program handles.
    """
    # TODO: grid = (number of programs,), then add_kernel[grid](x, y, out, n, BLOCK=block)
    raise NotImplementedError("launch_add: compute the grid and launch add_kernel")
