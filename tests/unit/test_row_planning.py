"""`tilelab.ops.rows.plan_rows`: rows per program, block, warps and ALIGN for the row kernels."""

import pytest

from tilelab.ops import rows as rows_op
from tilelab.ops.rows import plan_rows


@pytest.mark.parametrize("n_cols, block, rows", [(1, 1, 4096), (128, 128, 32), (1000, 1024, 4), (4096, 4096, 1),
                                                 (5000, 8192, 1), (8192, 8192, 1)])
def test_short_rows_share_a_program_until_its_tile_is_full(n_cols, block, rows):
    plan = plan_rows(1 << 20, n_cols, 2)
    assert (plan.block, plan.rows, plan.one_block) == (block, rows, True)
    assert plan.rows * plan.block <= max(rows_op.TILE_ELEMENTS, plan.block)
    assert 4 <= plan.num_warps <= 16


def test_few_rows_get_no_spare_rows_beyond_the_next_power_of_two():
    assert plan_rows(3, 128, 2).rows == 4
    assert plan_rows(1, 128, 2).rows == 1
    assert plan_rows(0, 128, 2).rows == 1


def test_rows_longer_than_one_block_take_two_passes_one_row_per_program():
    plan = plan_rows(1024, 128256, 2)
    assert (plan.block, plan.rows, plan.one_block) == (rows_op.MAX_BLOCK, 1, False)
    assert plan.grid(1024) == (1024,)
    assert plan_rows(1000, 7, 4, tile_elements=64).grid(1000) == (125,)


@pytest.mark.parametrize("n_cols, strides, element_size, align", [
    (5000, (5000, 5000), 2, 8),  # 10000 bytes: 16-byte rows Triton cannot see (5000 is no multiple of 16)
    (5000, (5000, 5000), 4, 4),
    (4096, (4096, 4096), 2, 1),  # multiples of 16 elements: Triton's launcher proves these itself
    (1000, (1000, 1004), 2, 4),
    (1001, (1001,), 2, 1),
    (7, (7,), 4, 1),
])
def test_align_is_what_the_row_length_and_every_row_stride_share(n_cols, strides, element_size, align):
    assert plan_rows(64, n_cols, element_size, strides).align == align


def test_no_align_for_strided_columns():
    assert plan_rows(64, 5000, 2, (5000,), unit_columns=False).align == 1
