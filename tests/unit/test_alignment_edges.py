"""`tilelab.rows_aligned` and `to_aligned` where torch's strides say nothing: a dimension of size 1 (its stride is
never used to address anything) and rows of a single element (their column stride is never used either).

torch gives such dimensions whatever stride a view or `unsqueeze` leaves them, so a check that read them would
call aligned rows unaligned and `to_aligned` would copy a tensor it should hand back as it is.
"""

import torch

import tilelab


def test_a_size_one_dimension_does_not_count_whatever_its_stride():
    flat = tilelab.empty_aligned(1000, dtype=torch.float16)  # one 2000-byte row, starting on a line
    x = flat.unsqueeze(0)  # [1, 1000] with a row stride of 1000 elements: 2000 bytes, off a line
    assert x.stride() == (1000, 1) and x.data_ptr() % 128 == 0
    assert tilelab.rows_aligned(x) and tilelab.to_aligned(x) is x
    # The same in the middle of a batch: [4, 1, 1000], the size-1 dimension's stride off a line.
    batch = tilelab.empty_aligned(4, 1000, dtype=torch.float16).unsqueeze(1).as_strided(
        (4, 1, 1000), (1024, 1000, 1))
    assert tilelab.rows_aligned(batch) and tilelab.to_aligned(batch) is batch


def test_rows_of_one_element_need_no_unit_column_stride():
    base = tilelab.empty_aligned(8, 64, dtype=torch.float32)  # rows of 256 bytes on 128-byte lines
    column = base[:, ::64]  # [8, 1], column stride 64: each row is one element, 256 bytes apart
    assert column.shape == (8, 1) and column.stride() == (64, 64)
    assert tilelab.rows_aligned(column) and tilelab.to_aligned(column) is column
    # Rows of one element start on 16 bytes (shorter than a line): 4-byte row starts are not.
    odd = torch.empty(8, 4)[:, ::4].as_strided((8, 1), (1, 4))
    assert not tilelab.rows_aligned(odd)
