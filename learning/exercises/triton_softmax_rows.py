"""Exercise 18 (lesson 8, after triton_softmax): several rows per program.

Your triton_softmax gives each program one row. For 262144 rows of 128 that is 262144 programs, each with
128 values spread over 4 warps of 32 threads: one value per thread, far too little work per program to keep
the memory busy. tilelab's `softmax_kernel` (src/tilelab/kernels/rows.py) gives a program a
[ROWS, BLOCK] tile instead: ROWS whole rows at once, reduced along axis=1, with `plan_rows`
(src/tilelab/ops/rows.py) choosing ROWS so that a tile holds about 4096 values. On the H200 that took 262144
float16 rows of 128 from 0.38x to 1.63x torch.softmax.

Write the plan, the kernel and the launcher, then run:  python -m learning.check triton_softmax_rows
"""

import triton
import triton.language as tl


def rows_per_program(n_rows, n_cols, tile_elements=4096):
    """(ROWS, BLOCK) for a softmax over n_rows rows of n_cols values each (n_rows, n_cols >= 1).

    BLOCK is the row padded to a power of two (triton.next_power_of_2(n_cols)). ROWS is how many whole rows
    fill a tile of tile_elements values (a power of two), but at least 1 even when one row is wider than that,
    and never more than the rows there are, rounded up to a power of two (tl.arange needs powers of two).

    rows_per_program(262144, 128) == (32, 128); rows_per_program(3, 100) == (4, 128);
    rows_per_program(1000, 300) == (8, 512); rows_per_program(5, 8192) == (1, 8192).
    """
    raise NotImplementedError("rows_per_program: BLOCK = next power of two of n_cols; ROWS = tile // BLOCK, "
                              "at least 1, at most the next power of two of n_rows")


@triton.jit
def softmax_rows_kernel(x_ptr, y_ptr, n_rows, n_cols, stride_x_row, stride_y_row,
                        BLOCK: tl.constexpr, ROWS: tl.constexpr):
    """Program pid writes softmax of rows pid * ROWS ... pid * ROWS + ROWS - 1 of x (columns 0 .. n_cols - 1)
    into the same rows of y. Row r of x starts at x_ptr + r * stride_x_row, of y at y_ptr + r * stride_y_row;
    columns are contiguous. The last program may have spare rows: rows at or past n_rows."""
    # TODO: rows = pid * ROWS + tl.arange(0, ROWS) and cols = tl.arange(0, BLOCK);
    #       in_row = (cols < n_cols)[None, :]: a [1, BLOCK] column mask;
    #       owned = (rows < n_rows)[:, None]: a [ROWS, 1] mask of the rows this program really has;
    #       load a [ROWS, BLOCK] tile from the rows clamped to the last row (tl.minimum(rows, n_rows - 1)), so a
    #       spare row re-reads a real row instead of memory past x, masked with in_row, other=-inf;
    #       each row's max and sum along axis=1, broadcast back with [:, None];
    #       store with mask owned & in_row, so a spare row never writes.
    pass


def launch_softmax_rows(x, out=None, tile_elements=4096):
    """softmax(x, dim=1) for a 2-D float32 tensor x (its rows possibly padded: pass x.stride(0)).

    Writes into `out` (a float32 tensor of x's shape, with its own row stride) when one is given, else into a
    new tensor; returns the tensor it wrote. One launch of softmax_rows_kernel, with ROWS and BLOCK from
    rows_per_program(n_rows, n_cols, tile_elements), on a grid of triton.cdiv(n_rows, ROWS) programs.

    A 65 x 100 input: ROWS = 32, BLOCK = 128, 3 programs; the third owns row 64 and has 31 spare rows.
    """
    raise NotImplementedError("launch_softmax_rows: plan with rows_per_program, then grid = (cdiv(n_rows, ROWS),)")
