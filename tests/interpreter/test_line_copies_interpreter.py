"""Copies onto 128-byte lines (`tilelab.ops.line_copies`) on Triton's interpreter: what the copy kernel writes, in
every orientation and run width, against the source, into poisoned storage, and that every row starts on a line.
Which products copy, and their replays, need a Hopper GPU: tests/gpu/test_line_copies_gpu.py."""

import pytest
import torch

from tests.helpers import randn
from tilelab.alignment import LINE_BYTES
from tilelab.ops import line_copies


def operand(shape, dtype, gen, *, column_major=False, row_stride=None, offset=0):
    """A [batch, rows, cols] operand: row-major, or column-major (stored as its transpose), with rows `row_stride`
    apart and starting `offset` elements into its storage (off 16-byte alignment where those say so)."""
    batch, rows, cols = shape
    inner, outer = (rows, cols) if column_major else (cols, rows)
    stride = row_stride or inner
    storage = randn((batch * outer * stride + offset,), dtype, "cpu", gen)
    x = storage[offset:].as_strided((batch, outer, inner), (outer * stride, stride, 1))
    return x.transpose(1, 2) if column_major else x


def filled(x3):
    """`allocate_on_lines` with its storage poisoned, then filled: (the lined view, its LineCopy)."""
    lined = line_copies.allocate_on_lines(x3)
    lined.rows.fill_(float("nan"))
    return lined.view, lined.fill()


CASES = [  # shape, column-major, row stride, offset (elements), the fp16 run each copy vector takes (8: 16 bytes)
    ((1, 7, 1001), False, None, 0, 1),
    ((1, 33, 1500), False, None, 0, 4),
    ((1, 9, 1502), False, None, 0, 2),
    ((1, 5, 1000), False, 1003, 0, 1),
    ((3, 17, 24), False, 26, 0, 2),
    ((1, 40, 1001), True, None, 0, 8),
    ((1, 1001, 40), True, None, 0, 1),
    ((2, 132, 9), True, 136, 0, 4),
    ((1, 4, 3000), False, None, 4, 4),
    ((1, 1, 1), False, None, 1, 1),
    ((2, 255, 127), False, 129, 3, 1),
]


@pytest.mark.parametrize("shape,column_major,row_stride,offset,group", CASES)
@pytest.mark.parametrize("dtype", [torch.float16, torch.float32])
def test_the_copy_is_exact_and_every_row_starts_on_a_line(rng, shape, column_major, row_stride, offset, group, dtype):
    x3 = operand(shape, dtype, rng, column_major=column_major, row_stride=row_stride, offset=offset)
    view, made = filled(x3)
    assert view.shape == x3.shape and torch.equal(view, x3)
    assert (view.stride(1) == 1) == column_major  # the copy keeps the operand's orientation
    rows = view.transpose(1, 2) if column_major else view
    row_bytes = rows.stride(1) * rows.element_size()
    assert view.data_ptr() % LINE_BYTES == 0 and row_bytes % 16 == 0
    if rows.shape[2] * rows.element_size() >= LINE_BYTES:
        assert row_bytes % LINE_BYTES == 0
    assert made.launch[2][-1] == min(group, 16 // x3.element_size())  # GROUP, the kernel's last argument
    assert made.source_ptr == x3.data_ptr() and made.buffer_shape[:2] == rows.shape[:2]


def test_a_b_shared_by_the_batch_is_copied_once_and_shared_the_same_way(rng):
    b = operand((1, 65, 1001), torch.float16, rng)
    b3 = b.expand(4, 65, 1001)
    view, made = filled(b3)
    assert view.stride(0) == 0 and torch.equal(view, b3)
    assert made.buffer_shape[0] == 1 and made.launch[1][2] == 1  # one matrix copied


def test_a_batch_over_cudas_grid_limit_is_copied_in_parts_and_not_recorded(monkeypatch, rng):
    monkeypatch.setattr(line_copies, "MAX_GRID_Z", 2)
    x3 = operand((5, 3, 1001), torch.float16, rng)
    view, made = filled(x3)
    assert torch.equal(view, x3) and made.launch is None
