"""The row kernels' index helpers, `row_tile` and `column_block` (`tilelab.kernels.rows`), run on their own.

softmax and RMSNorm only store rows a program owns, so their outputs cannot show what a program *reads*: a
ragged last program whose spare rows were not clamped would read past the tensor's end (on a GPU, a fault or
another tensor's memory) and still store the right values. These tests look at the helpers' indices directly,
against indices worked out in plain Python.
"""

import pytest
import torch
import triton
import triton.language as tl

from tilelab.kernels.rows import column_block, row_tile


@triton.jit
def _indices_kernel(rows_ptr, owned_ptr, cols_ptr, in_row_ptr, n_rows, n_cols, start,
                    ROWS: tl.constexpr, BLOCK: tl.constexpr):
    rows, owned = row_tile(n_rows, ROWS)
    slots = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    tl.store(rows_ptr + slots, rows)
    tl.store(owned_ptr + slots[:, None], owned.to(tl.int32))
    cols, in_row = column_block(start, n_cols, BLOCK)
    lanes = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(cols_ptr + lanes, cols)
    tl.store(in_row_ptr + lanes[None, :], in_row.to(tl.int32))


def _indices(n_rows, n_cols, start, rows_per_program, block, programs, device):
    out = [torch.full((programs * size,), -7, dtype=torch.int64 if i % 2 == 0 else torch.int32, device=device)
           for i, size in enumerate((rows_per_program, rows_per_program, block, block))]
    _indices_kernel[(programs,)](*out, n_rows, n_cols, start, ROWS=rows_per_program, BLOCK=block)
    return [t.cpu().tolist() for t in out]


@pytest.mark.parametrize("n_rows, rows_per_program", [(7, 4), (5, 2), (1, 8), (9, 1)])
def test_spare_rows_read_the_last_row_and_are_not_owned(n_rows, rows_per_program, device):
    programs = -(-n_rows // rows_per_program)
    rows, owned, _, _ = _indices(n_rows, 8, 0, rows_per_program, 16, programs, device)
    slots = range(programs * rows_per_program)
    # Every row read exists (clamped to the last), and only rows before n_rows are owned (stored).
    assert rows == [min(s, n_rows - 1) for s in slots]
    assert owned == [int(s < n_rows) for s in slots]
    assert max(rows) == n_rows - 1


@pytest.mark.parametrize("n_cols, start, block", [(20, 16, 16), (7, 0, 8), (16, 0, 16), (40, 32, 16)])
def test_column_block_masks_the_columns_past_the_row(n_cols, start, block, device):
    _, _, cols, in_row = _indices(3, n_cols, start, 4, block, 1, device)
    assert cols == [start + lane for lane in range(block)]
    assert in_row == [int(start + lane < n_cols) for lane in range(block)]
