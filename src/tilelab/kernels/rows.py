"""Row kernels: softmax and RMSNorm over the last dimension, one program per row.

Only `@triton.jit` code lives here; `tilelab.ops.rows` checks the inputs and launches. These are the course's
row kernels (lessons 3 to 5 and 8) as the library runs them: float32 arithmetic whatever the input dtype, every
edge masked, any row stride.

A row that fits in one block (ONE_BLOCK) is read once, kept in registers and written once. A longer row is
walked in BLOCK-wide chunks twice: the first pass reduces (softmax: the running maximum and the sum of
exponentials, rescaled whenever the maximum grows -- the "online" softmax; RMSNorm: the sum of squares), the
second reads the row again and writes the result. Memory traffic is then 3 passes over the row instead of 2;
the second read mostly hits L2.
"""

import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, stride_x_row, stride_x_col, stride_y_row, stride_y_col,
                   BLOCK: tl.constexpr, ONE_BLOCK: tl.constexpr):
    """y[row] = exp(x[row] - max) / sum(exp(x[row] - max)): subtracting the maximum keeps exp() from
    overflowing, and masked lanes load -inf, whose exponential is 0."""
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_x_row
    y_row = y_ptr + row * stride_y_row
    cols = tl.arange(0, BLOCK)
    if ONE_BLOCK:
        mask = cols < n_cols
        x = tl.load(x_row + cols * stride_x_col, mask=mask, other=-float("inf")).to(tl.float32)
        exps = tl.exp(x - tl.max(x, axis=0))
        y = exps / tl.sum(exps, axis=0)
        tl.store(y_row + cols * stride_y_col, y.to(y_ptr.dtype.element_ty), mask=mask)
    else:
        # Pass 1, online: keep a per-lane running maximum and a sum of exponentials relative to it.
        running_max = tl.full((BLOCK,), -float("inf"), tl.float32)
        running_sum = tl.zeros((BLOCK,), tl.float32)
        for start in range(0, n_cols, BLOCK):
            mask = start + cols < n_cols
            x = tl.load(x_row + (start + cols) * stride_x_col, mask=mask, other=-float("inf")).to(tl.float32)
            new_max = tl.maximum(running_max, x)
            # A lane that has seen only -inf keeps a sum of 0 (exp(-inf - -inf) would be NaN).
            rescale = tl.where(new_max == -float("inf"), 0.0, tl.exp(running_max - new_max))
            running_sum = running_sum * rescale + tl.where(mask, tl.exp(x - new_max), 0.0)
            running_max = new_max
        row_max = tl.max(running_max, axis=0)
        lane_share = tl.where(running_max == -float("inf"), 0.0, tl.exp(running_max - row_max))
        total = tl.sum(running_sum * lane_share, axis=0)
        # Pass 2: read the row again and write it normalized.
        for start in range(0, n_cols, BLOCK):
            mask = start + cols < n_cols
            x = tl.load(x_row + (start + cols) * stride_x_col, mask=mask, other=-float("inf")).to(tl.float32)
            y = tl.exp(x - row_max) / total
            tl.store(y_row + (start + cols) * stride_y_col, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def residual_sum(x, residual_ptrs, sum_ptrs, mask, sum_ptr):
    """x + residual, stored rounded to the sum's dtype and returned as stored (in float32): the norm then sees
    exactly the sum the next layer will read, as it would after a separate add."""
    h = (x + tl.load(residual_ptrs, mask=mask, other=0.0).to(tl.float32)).to(sum_ptr.dtype.element_ty)
    tl.store(sum_ptrs, h, mask=mask)
    return h.to(tl.float32)


@triton.jit
def rmsnorm_kernel(x_ptr, residual_ptr, weight_ptr, y_ptr, sum_ptr, n_cols, eps,
                   stride_x_row, stride_r_row, stride_y_row, stride_s_row,
                   BLOCK: tl.constexpr, ONE_BLOCK: tl.constexpr, HAS_RESIDUAL: tl.constexpr,
                   HAS_WEIGHT: tl.constexpr):
    """y[row] = h / sqrt(mean(h^2) + eps) * weight, with h = x[row] (+ residual[row], stored to sum_ptr).

    The residual add is the one that usually comes right before a transformer's norm: fused, its sum is
    written once (the next layer adds to it) instead of written, then read back by the norm. Rows are
    contiguous (a unit column stride); eps inside the root keeps an all-zero row finite.
    """
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_x_row
    r_row = residual_ptr + row * stride_r_row
    y_row = y_ptr + row * stride_y_row
    s_row = sum_ptr + row * stride_s_row
    cols = tl.arange(0, BLOCK)
    if ONE_BLOCK:
        mask = cols < n_cols
        h = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        if HAS_RESIDUAL:
            h = residual_sum(h, r_row + cols, s_row + cols, mask, sum_ptr)
        inverse_rms = tl.rsqrt(tl.sum(h * h, axis=0) / n_cols + eps)
        y = h * inverse_rms
        if HAS_WEIGHT:
            y *= tl.load(weight_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_row + cols, y.to(y_ptr.dtype.element_ty), mask=mask)
    else:
        squares = tl.zeros((BLOCK,), tl.float32)
        for start in range(0, n_cols, BLOCK):
            mask = start + cols < n_cols
            h = tl.load(x_row + start + cols, mask=mask, other=0.0).to(tl.float32)
            if HAS_RESIDUAL:
                h = residual_sum(h, r_row + start + cols, s_row + start + cols, mask, sum_ptr)
            squares += h * h
        inverse_rms = tl.rsqrt(tl.sum(squares, axis=0) / n_cols + eps)
        if HAS_RESIDUAL:
            tl.debug_barrier()  # pass 1's stores of the sum, visible to every thread of the program
        for start in range(0, n_cols, BLOCK):
            mask = start + cols < n_cols
            if HAS_RESIDUAL:  # the sum as stored by pass 1
                h = tl.load(s_row + start + cols, mask=mask, other=0.0).to(tl.float32)
            else:
                h = tl.load(x_row + start + cols, mask=mask, other=0.0).to(tl.float32)
            y = h * inverse_rms
            if HAS_WEIGHT:
                y *= tl.load(weight_ptr + start + cols, mask=mask, other=0.0).to(tl.float32)
            tl.store(y_row + start + cols, y.to(y_ptr.dtype.element_ty), mask=mask)
