"""Rows are neither clamped nor masked: the last program's spare rows are stored past the end of out."""

import triton
import triton.language as tl


def rows_per_program(n_rows, n_cols, tile_elements=4096):
    block = triton.next_power_of_2(n_cols)
    return min(max(1, tile_elements // block), triton.next_power_of_2(n_rows)), block


@triton.jit
def softmax_rows_kernel(x_ptr, y_ptr, n_rows, n_cols, stride_x_row, stride_y_row,
                        BLOCK: tl.constexpr, ROWS: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK)
    in_row = (cols < n_cols)[None, :]
    x = tl.load(x_ptr + rows[:, None] * stride_x_row + cols[None, :], mask=in_row, other=-float("inf"))
    exps = tl.exp(x - tl.max(x, axis=1)[:, None])
    y = exps / tl.sum(exps, axis=1)[:, None]
    tl.store(y_ptr + rows[:, None] * stride_y_row + cols[None, :], y, mask=in_row)


def launch_softmax_rows(x, out=None, tile_elements=4096):
    n_rows, n_cols = x.shape
    if out is None:
        out = x.new_empty((n_rows, n_cols))
    rows, block = rows_per_program(n_rows, n_cols, tile_elements)
    softmax_rows_kernel[(triton.cdiv(n_rows, rows),)](x, out, n_rows, n_cols, x.stride(0), out.stride(0),
                                                      BLOCK=block, ROWS=rows)
    return out
