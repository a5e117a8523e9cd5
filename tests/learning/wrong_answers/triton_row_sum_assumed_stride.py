"""The launcher assumes rows are n_cols apart, but the input's rows are padded."""

import triton

from learning.solutions.triton_row_sum import row_sum_kernel


def launch_row_sum(x, out):
    rows, cols = x.shape
    row_sum_kernel[(rows,)](x, out, cols, cols, BLOCK=triton.next_power_of_2(cols))
