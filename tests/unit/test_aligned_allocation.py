"""`tilelab.empty_aligned`, `to_aligned` and `rows_aligned`: a caller's tensors with rows on 128-byte lines."""

import subprocess
import sys

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import tilelab
from tilelab import alignment
from tilelab.contracts import DTypeError, InputTypeError, ShapeError

DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.int8, torch.float64]


def row_start_bytes(cols: int, dtype: torch.dtype) -> int:
    return 128 if cols * dtype.itemsize >= 128 else 16


@pytest.mark.parametrize("shape,dtype,strides", [
    ((1000, 1000), torch.float16, (1024, 1)),
    ((3000, 7), torch.float16, (8, 1)),  # 14-byte rows: 16-byte starts
    ((2, 5, 300), torch.float32, (5 * 320, 320, 1)),  # 1200-byte rows padded to 1280
    ((127, 255), torch.bfloat16, (256, 1)),
    ((65, 64), torch.float16, (64, 1)),  # a row is exactly one line: no padding
    ((1, 1), torch.float32, (4, 1)),
])
def test_rows_start_on_lines(shape, dtype, strides):
    x = tilelab.empty_aligned(*shape, dtype=dtype)
    assert x.shape == shape and x.dtype == dtype and x.stride() == strides
    assert x.data_ptr() % row_start_bytes(shape[-1], dtype) == 0
    assert tilelab.rows_aligned(x)


@settings(max_examples=60, deadline=None)
@given(shape=st.lists(st.integers(0, 70), min_size=0, max_size=3), dtype=st.sampled_from(DTYPES))
def test_any_shape_and_dtype(shape, dtype):
    x = tilelab.empty_aligned(tuple(shape), dtype=dtype)
    assert tuple(x.shape) == tuple(shape) and x.dtype == dtype
    assert tilelab.rows_aligned(x)
    if x.numel():
        x.fill_(3)  # every element is writable storage of its own: rows do not overlap
        assert int(x.to(torch.float64).sum()) == 3 * x.numel()


def test_size_as_torch_empty_takes_it():
    assert tilelab.empty_aligned(4, 5).shape == tilelab.empty_aligned((4, 5)).shape == (4, 5)
    assert tilelab.empty_aligned(torch.Size([2, 3, 4])).shape == (2, 3, 4)
    assert tilelab.empty_aligned(6).data_ptr() % 16 == 0  # a 1-D tensor is one row
    assert tilelab.empty_aligned(4, 5).dtype == torch.get_default_dtype()


@pytest.mark.parametrize("size", [(-1, 3), (2.0, 3), (True, 3), ("4",)])
def test_bad_sizes_are_shape_errors(size):
    with pytest.raises(ShapeError, match="size must be non-negative ints"):
        tilelab.empty_aligned(*size)


def test_bad_dtype_is_a_dtype_error():
    with pytest.raises(DTypeError, match="dtype must be a torch.dtype"):
        tilelab.empty_aligned(3, 3, dtype="float16")


@pytest.mark.parametrize("make", [
    lambda: torch.randn(1000, 1000).half(),  # 2000-byte rows: off lines
    lambda: torch.randn(300, 127).t(),  # column-major
    lambda: torch.randn(2, 65, 255)[:, :, 1:],  # rows start 4 bytes in
    lambda: torch.randn(7, 1),
])
def test_to_aligned_copies_what_is_not_aligned(make):
    x = make()
    y = tilelab.to_aligned(x)
    assert torch.equal(y, x) and tilelab.rows_aligned(y) and y.data_ptr() != x.data_ptr()
    assert tilelab.to_aligned(y) is y  # already aligned: no second copy


def test_to_aligned_keeps_what_is_aligned():
    x = tilelab.empty_aligned(64, 256, dtype=torch.float16)[:, :200]  # a narrower view: rows stay on lines
    assert x.stride() == (256, 1) and tilelab.rows_aligned(x) and tilelab.to_aligned(x) is x


def test_to_aligned_is_differentiable():
    x = torch.randn(5, 6, requires_grad=True)
    y = tilelab.to_aligned(x)
    (y * torch.arange(6.0)).sum().backward()
    assert torch.equal(x.grad, torch.arange(6.0).expand(5, 6))


def test_rows_aligned_needs_a_tensor():
    with pytest.raises(InputTypeError, match="x must be a torch.Tensor"):
        tilelab.rows_aligned([[1.0]])
    with pytest.raises(InputTypeError):
        tilelab.to_aligned(None)


def test_rows_aligned_rules():
    base = tilelab.empty_aligned(8, 512, dtype=torch.float16)
    assert tilelab.rows_aligned(base)
    assert not tilelab.rows_aligned(base[:, 8:])  # 16 bytes into a line
    assert not tilelab.rows_aligned(base.t())  # the last dimension is not contiguous
    assert tilelab.rows_aligned(base[:1, 64:])  # one row, starting 128 bytes in: on a line
    assert tilelab.rows_aligned(torch.tensor(1.0))


def test_output_rows_follow_the_same_rule():
    """tilelab's outputs and `empty_aligned` agree on row strides (`output_row_stride`)."""
    for cols, size in ((1000, 2), (255, 2), (7, 4), (300, 4)):
        dtype = {2: torch.float16, 4: torch.float32}[size]
        assert tilelab.empty_aligned(3, cols, dtype=dtype).stride(0) == alignment.output_row_stride(cols, size)


def test_importing_it_does_not_import_triton():
    code = ("import sys, tilelab, torch; tilelab.empty_aligned(4, 4); tilelab.to_aligned(torch.ones(3, 3)); "
            "print('triton' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "False"


def test_the_course_reference_agrees_with_the_library():
    """Exercise 13's `aligned_row_stride` is checked against a standard-library copy of `output_row_stride`."""
    from learning.checking import reference

    for size in (1, 2, 4, 8):
        for width in range(1, 700):
            assert reference.aligned_row_stride(width, size) == alignment.output_row_stride(width, size), (width, size)
