"""ops/matmul_plan.py's planning at its exact edges, found untested by mutation testing (thirty-second session):
where the pointer kernel's offsets stop fitting in int32 (shapes only, meta tensors: nothing is allocated or
launched), and operands a tensor descriptor cannot describe."""

import pytest
import torch

import tilelab
from tests.helpers import assert_matches_reference, randn
from tilelab import tuning
from tilelab.ops import matmul as matmul_op
from tilelab.ops import matmul_plan

EDGE = tuning.MAX_TILE_EDGE  # 256: masked lanes of a tile reach this far past the last row and column
# A [rows, 256] row-major A whose last tile's lanes reach element (rows + 256) * 256 + (256 + 256): exactly
# 2**31 for this many rows, the first offset int32 cannot hold.
ROWS_AT_THE_LIMIT = (2**31 - (EDGE + EDGE) - EDGE * 256) // 256


def _meta(*shape, dtype=torch.float16):
    return torch.empty(shape, dtype=dtype, device="meta")


def test_the_last_offset_int32_holds_and_the_first_it_cannot():
    assert (ROWS_AT_THE_LIMIT + EDGE) * 256 + 2 * EDGE == 2**31
    b = _meta(1, 256, 16)
    at_limit = _meta(1, ROWS_AT_THE_LIMIT, 256)
    assert matmul_plan.needs_64bit_offsets(at_limit, b, ROWS_AT_THE_LIMIT, 16, 1)
    below = _meta(1, ROWS_AT_THE_LIMIT - 1, 256)  # 256 elements less: 2**31 - 256
    assert not matmul_plan.needs_64bit_offsets(below, b, ROWS_AT_THE_LIMIT - 1, 16, 1)


@pytest.mark.parametrize("batch", [2, 3])
def test_the_batch_offset_counts_up_to_the_last_matrix_only(batch):
    """Matrix batch - 1 is the last any program reads: a contiguous batch of A whose last matrix's lanes end
    below 2**31 keeps 32-bit offsets, though one matrix more would cross it."""
    rows = (ROWS_AT_THE_LIMIT - 1) // batch
    a, b = _meta(batch, rows, 256), _meta(1, 256, 16)
    largest = (batch - 1) * rows * 256 + (rows + EDGE) * 256 + 2 * EDGE
    assert largest < 2**31 <= largest + rows * 256
    assert not matmul_plan.needs_64bit_offsets(a, b, rows, 16, batch)
    assert matmul_plan.needs_64bit_offsets(_meta(batch + 1, rows, 256), b, rows, 16, batch + 1)


def test_only_the_pointer_plan_takes_64_bit_offsets():
    a = _meta(1, ROWS_AT_THE_LIMIT, 256)
    b = _meta(1, 256, 16)
    assert matmul_plan.needs_64bit_offsets(a, b, ROWS_AT_THE_LIMIT, 16, 1)
    for path in ("pointer", "descriptor"):
        plan = matmul_plan.plan_matmul(a, b, path, "tf32", tuning.INTERPRETER)
        assert plan.offsets_64 is (path == "pointer"), path


@pytest.mark.parametrize("row_stride", [0, 8])
def test_rows_that_overlap_are_no_descriptor_s_and_take_the_pointer_kernel(row_stride, device, rng):
    """A row stride shorter than a row (a broadcast row, or a sliding window over one buffer): no tensor
    descriptor describes it, whatever its alignment, so path=None plans the pointer kernel."""
    a = randn((33 * 8 + 64,), torch.float32, device, rng).as_strided((33, 64), (row_stride, 1))
    b = randn((64, 24), torch.float32, device, rng)
    assert not matmul_plan.operand_layout(a[None]).tma_ok
    assert matmul_op.describe_plan(a, b)["path"] == "pointer"
    out = tilelab.matmul(a, b, precision="ieee")
    assert_matches_reference(out, a, b, precision="ieee", label=f"rows {row_stride} elements apart")


def test_a_config_with_split_k_takes_the_split_k_path_and_no_other(device, rng, poisoned_outputs):
    """A HopperConfig's split_k was ignored without path='splitk' (a library user's review): path=None now takes
    the split-K path, and any other path is refused by name."""
    from tilelab.ops.matmul_hopper import HopperConfig

    a, b = randn((16, 96), torch.float32, device, rng), randn((96, 24), torch.float32, device, rng)
    config = HopperConfig(16, 16, 32, num_warps=4, num_stages=1, epilogue_subtile=False, split_k=3)
    assert matmul_op.describe_plan(a, b, config=config)["path"] == "splitk"
    out = tilelab.matmul(a, b, config=config, precision="ieee")
    assert_matches_reference(out, a, b, precision="ieee")
    for path in ("pointer", "descriptor", "persistent"):
        with pytest.raises(tilelab.ContractError, match=f"config.split_k=3 slices K on path='splitk' only .*; got "
                                                        f"path='{path}'"):
            tilelab.matmul(a, b, config=config, path=path)
