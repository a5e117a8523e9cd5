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


@pytest.mark.parametrize("n_rows, n_cols, warps", [
    (4096, 5000, 8),  # 5000 real values in an 8192-lane block: warps for the 5000 (16 for the block)
    (4096, 8192, 16), (8192, 4096, 8), (262144, 128, 8), (16384, 1000, 8),  # 4 rows of 1000: 4000 values
    (1024, 128256, 16),  # two passes over 8192-wide chunks
    (3, 7, 4), (1, 1, 4), (0, 5, 4),
])
def test_warps_follow_the_values_a_program_loads_not_its_masked_lanes(n_rows, n_cols, warps):
    assert plan_rows(n_rows, n_cols, 2).num_warps == warps


@pytest.mark.parametrize("n_cols", [1 << p for p in range(14)])
def test_rows_that_fill_their_block_get_a_warp_per_512_lanes(n_cols):
    plan = plan_rows(1 << 20, n_cols, 2)
    assert plan.num_warps == min(16, max(4, plan.rows * plan.block // 512))


def test_row_warps_rounds_to_the_nearest_power_of_two():
    # the boundaries lie at 512 * 2**2.5 = 2896.3 and 512 * 2**3.5 = 5792.6 values
    assert [rows_op.row_warps(e) for e in (0, 1, 2896, 2897, 5000, 5792, 5793, 12000, 10**6)] == [
        4, 4, 4, 8, 8, 8, 16, 16, 16]
