"""The store has no mask: tail lanes of the last program write past the end of out."""

import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y)


def launch_add(x, y, out, block=1024):
    add_kernel[(triton.cdiv(out.numel(), block),)](x, y, out, out.numel(), BLOCK=block)
