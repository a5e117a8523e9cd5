"""Right answers, one row per program: the launch passes ROWS=1 and a grid of n_rows programs."""

import triton
import triton.language as tl


def rows_per_program(n_rows, n_cols, tile_elements=4096):
    block = triton.next_power_of_2(n_cols)
    rows = max(1, tile_elements // block)  # a row wider than the tile still gets a program of its own
    return min(rows, triton.next_power_of_2(n_rows)), block  # no tile of 32 rows for 3 rows


@triton.jit
def softmax_rows_kernel(x_ptr, y_ptr, n_rows, n_cols, stride_x_row, stride_y_row,
                        BLOCK: tl.constexpr, ROWS: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK)
    in_row = (cols < n_cols)[None, :]  # [1, BLOCK]
    owned = (rows < n_rows)[:, None]  # [ROWS, 1]: spare rows of the last program are False
    # Spare rows re-read the last row: every load stays inside x, and no row of the tile is all -inf.
    read = tl.minimum(rows, n_rows - 1)
    x = tl.load(x_ptr + read[:, None] * stride_x_row + cols[None, :], mask=in_row, other=-float("inf"))
    exps = tl.exp(x - tl.max(x, axis=1)[:, None])  # each row's own maximum: axis=1 runs along the row
    y = exps / tl.sum(exps, axis=1)[:, None]
    tl.store(y_ptr + rows[:, None] * stride_y_row + cols[None, :], y, mask=owned & in_row)


def launch_softmax_rows(x, out=None, tile_elements=4096):
    n_rows, n_cols = x.shape
    if out is None:
        out = x.new_empty((n_rows, n_cols))
    rows, block = 1, rows_per_program(n_rows, n_cols, tile_elements)[1]
    softmax_rows_kernel[(triton.cdiv(n_rows, rows),)](x, out, n_rows, n_cols, x.stride(0), out.stride(0),
                                                      BLOCK=block, ROWS=rows)
    return out
