"""Row kernels: softmax and RMSNorm over the last dimension, ROWS rows per program.

Only `@triton.jit` code lives here; `tilelab.ops.rows` checks the inputs, plans (`plan_rows`) and launches.
These are the course's row kernels (lessons 3 to 5 and 8) as the library runs them: float32 arithmetic
whatever the input dtype, every edge masked, any row stride.

A program owns a [ROWS, BLOCK] tile: ROWS whole rows, BLOCK columns at a time. Short rows come several to a
program (262144 rows of 128 would otherwise be 262144 programs with one element per thread); long rows one.

A row that fits in one block (ONE_BLOCK) is read once, kept in registers and written once. A longer row is
walked in BLOCK-wide chunks twice: the first pass reduces (softmax: the running maximum and the sum of
exponentials, rescaled whenever the maximum grows -- the "online" softmax; RMSNorm: the sum of squares), the
second reads the row again and writes the result. Memory traffic is then 3 passes over the row instead of 2;
the second read mostly hits L2.

ALIGN > 1: the launcher checked that the row length and every row stride are multiples of ALIGN elements
(`known_multiple` tells the compiler), so a row of 5000 float16 values is loaded 16 bytes at a time, not 2.
"""

import triton
import triton.language as tl

from tilelab.kernels.matmul import known_multiple


@triton.jit
def row_tile(n_rows, ROWS: tl.constexpr):
    """This program's ROWS rows: (rows, owned). rows are int64 (offsets past 2**31 elements) and clamped to the
    last row, so every row a program reads exists: the last program's spare rows re-read the last row, and
    `owned` (rows before n_rows, [ROWS, 1]) keeps them from being stored."""
    rows = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)
    return tl.minimum(rows, n_rows - 1), (rows < n_rows)[:, None]


@triton.jit
def column_block(start, n_cols, BLOCK: tl.constexpr):
    """Columns start..start+BLOCK of the rows and `in_row`, those before n_cols, [1, BLOCK]."""
    cols = start + tl.arange(0, BLOCK)
    return cols, (cols < n_cols)[None, :]


@triton.jit
def row_max(x):
    """Each row's maximum, 0 where the row is all -inf: exp(x - max) is then exp(-inf) = 0 instead of NaN in
    the first pass, and such a row comes out 0 / 0 = NaN, as torch's does."""
    peak = tl.max(x, axis=1)
    return tl.where(peak == -float("inf"), 0.0, peak)[:, None]


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_rows, n_cols, stride_x_row, stride_x_col, stride_y_row,
                   BLOCK: tl.constexpr, ROWS: tl.constexpr, ONE_BLOCK: tl.constexpr, ALIGN: tl.constexpr):
    """y[row] = exp(x[row] - max) / sum(exp(x[row] - max)): subtracting the maximum keeps exp() from
    overflowing, and masked lanes load -inf, whose exponential is 0. y is contiguous."""
    if ALIGN > 1:
        n_cols = known_multiple(n_cols, ALIGN)
        stride_x_row = known_multiple(stride_x_row, ALIGN)
        stride_y_row = known_multiple(stride_y_row, ALIGN)
    rows, owned = row_tile(n_rows, ROWS)
    cols, in_row = column_block(0, n_cols, BLOCK)
    x_rows = x_ptr + rows[:, None] * stride_x_row
    y_rows = y_ptr + rows[:, None] * stride_y_row
    if ONE_BLOCK:
        x = tl.load(x_rows + cols[None, :] * stride_x_col, mask=in_row, other=-float("inf")).to(tl.float32)
        exps = tl.exp(x - row_max(x))
        y = exps / tl.sum(exps, axis=1)[:, None]
        tl.store(y_rows + cols[None, :], y.to(y_ptr.dtype.element_ty), mask=owned & in_row)
    else:
        # Pass 1, online: keep a per-lane running maximum and a sum of exponentials relative to it.
        running_max = tl.full((ROWS, BLOCK), -float("inf"), tl.float32)
        running_sum = tl.zeros((ROWS, BLOCK), tl.float32)
        for start in range(0, n_cols, BLOCK):
            cols, in_row = column_block(start, n_cols, BLOCK)
            x = tl.load(x_rows + cols[None, :] * stride_x_col, mask=in_row, other=-float("inf")).to(tl.float32)
            new_max = tl.maximum(running_max, x)
            # A lane that has seen only -inf, its own x included, keeps a sum of 0 (exp(-inf - -inf) would be NaN).
            rescale = tl.where(new_max == -float("inf"), 0.0, tl.exp(running_max - new_max))
            running_sum = running_sum * rescale + tl.where(new_max == -float("inf"), 0.0, tl.exp(x - new_max))
            running_max = new_max
        peak = row_max(running_max)
        lane_share = tl.where(running_max == -float("inf"), 0.0, tl.exp(running_max - peak))
        total = tl.sum(running_sum * lane_share, axis=1)[:, None]
        # Pass 2: read the row again and write it normalized.
        for start in range(0, n_cols, BLOCK):
            cols, in_row = column_block(start, n_cols, BLOCK)
            x = tl.load(x_rows + cols[None, :] * stride_x_col, mask=in_row, other=-float("inf")).to(tl.float32)
            y = tl.exp(x - peak) / total
            tl.store(y_rows + cols[None, :], y.to(y_ptr.dtype.element_ty), mask=owned & in_row)


@triton.jit
def residual_sum(x, residual_ptrs, sum_ptrs, in_row, owned, sum_ptr):
    """x + residual, stored rounded to the sum's dtype and returned as stored (in float32): the norm then sees
    exactly the sum the next layer will read, as it would after a separate add."""
    h = (x + tl.load(residual_ptrs, mask=in_row, other=0.0).to(tl.float32)).to(sum_ptr.dtype.element_ty)
    tl.store(sum_ptrs, h, mask=owned & in_row)
    return h.to(tl.float32)


@triton.jit
def rmsnorm_kernel(x_ptr, residual_ptr, weight_ptr, y_ptr, sum_ptr, n_rows, n_cols, eps,
                   stride_x_row, stride_r_row, stride_y_row, stride_s_row,
                   BLOCK: tl.constexpr, ROWS: tl.constexpr, ONE_BLOCK: tl.constexpr, ALIGN: tl.constexpr,
                   HAS_RESIDUAL: tl.constexpr, HAS_WEIGHT: tl.constexpr):
    """y[row] = h / sqrt(mean(h^2) + eps) * weight, with h = x[row] (+ residual[row], stored to sum_ptr).

    The residual add is the one that usually comes right before a transformer's norm: fused, its sum is
    written once (the next layer adds to it) instead of written, then read back by the norm. Rows are
    contiguous (a unit column stride); eps inside the root keeps an all-zero row finite.
    """
    if ALIGN > 1:
        n_cols = known_multiple(n_cols, ALIGN)
        stride_x_row = known_multiple(stride_x_row, ALIGN)
        stride_r_row = known_multiple(stride_r_row, ALIGN)
        stride_y_row = known_multiple(stride_y_row, ALIGN)
        stride_s_row = known_multiple(stride_s_row, ALIGN)
    rows, owned = row_tile(n_rows, ROWS)
    cols, in_row = column_block(0, n_cols, BLOCK)
    x_rows = x_ptr + rows[:, None] * stride_x_row
    r_rows = residual_ptr + rows[:, None] * stride_r_row
    y_rows = y_ptr + rows[:, None] * stride_y_row
    s_rows = sum_ptr + rows[:, None] * stride_s_row
    if ONE_BLOCK:
        h = tl.load(x_rows + cols[None, :], mask=in_row, other=0.0).to(tl.float32)
        if HAS_RESIDUAL:
            h = residual_sum(h, r_rows + cols[None, :], s_rows + cols[None, :], in_row, owned, sum_ptr)
        inverse_rms = tl.rsqrt(tl.sum(h * h, axis=1) / n_cols + eps)[:, None]
        y = h * inverse_rms
        if HAS_WEIGHT:
            y *= tl.load(weight_ptr + cols[None, :], mask=in_row, other=0.0).to(tl.float32)
        tl.store(y_rows + cols[None, :], y.to(y_ptr.dtype.element_ty), mask=owned & in_row)
    else:
        squares = tl.zeros((ROWS, BLOCK), tl.float32)
        for start in range(0, n_cols, BLOCK):
            cols, in_row = column_block(start, n_cols, BLOCK)
            h = tl.load(x_rows + cols[None, :], mask=in_row, other=0.0).to(tl.float32)
            if HAS_RESIDUAL:
                h = residual_sum(h, r_rows + cols[None, :], s_rows + cols[None, :], in_row, owned, sum_ptr)
            squares += h * h
        inverse_rms = tl.rsqrt(tl.sum(squares, axis=1) / n_cols + eps)[:, None]
        if HAS_RESIDUAL:
            tl.debug_barrier()  # pass 1's stores of the sum, visible to every thread of the program
        for start in range(0, n_cols, BLOCK):
            cols, in_row = column_block(start, n_cols, BLOCK)
            if HAS_RESIDUAL:  # the sum as stored by pass 1
                h = tl.load(s_rows + cols[None, :], mask=in_row, other=0.0).to(tl.float32)
            else:
                h = tl.load(x_rows + cols[None, :], mask=in_row, other=0.0).to(tl.float32)
            y = h * inverse_rms
            if HAS_WEIGHT:
                y *= tl.load(weight_ptr + cols[None, :], mask=in_row, other=0.0).to(tl.float32)
            tl.store(y_rows + cols[None, :], y.to(y_ptr.dtype.element_ty), mask=owned & in_row)
