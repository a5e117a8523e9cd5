"""Rows on 128-byte lines: output row strides, and when tilelab copies an operand into line-aligned rows."""

import pytest
import torch

from tilelab.ops import matmul as matmul_op


@pytest.mark.parametrize("width,element_size,expected", [
    (1000, 2, 1024),  # 2000-byte rows -> 2048
    (3000, 2, 3008),
    (1001, 2, 1024),
    (4096, 2, 4096), (64, 2, 64), (1000, 4, 1024), (255, 2, 256),
    (36, 2, 40), (7, 4, 8), (1, 2, 8), (0, 2, 8),  # shorter than a line: 16-byte padding only
])
def test_output_row_stride(width, element_size, expected):
    stride = matmul_op.output_row_stride(width, element_size)
    assert stride == expected and stride >= width
    line = matmul_op.LINE_BYTES
    assert (stride * element_size) % (line if width * element_size >= line else 16) == 0


def on_lines(rows: int, cols: int) -> torch.Tensor:
    """A [rows, cols] fp16 view whose base and rows start on 128-byte lines (the CPU allocator promises less)."""
    buffer = torch.empty(rows * cols + 64, dtype=torch.float16)
    skip = (-buffer.data_ptr() % 128) // 2
    return buffer[skip:skip + rows * cols].view(rows, cols)


def test_which_operands_need_a_line_aligned_copy():
    needs = matmul_op._needs_line_aligned_copy
    assert needs(torch.empty(8, 1000, dtype=torch.float16))  # 2000-byte rows
    assert not needs(on_lines(8, 1024))
    assert needs(on_lines(8, 1088)[:, 8:1032])  # rows on lines, but the view starts 16 bytes in
    assert needs(torch.empty(8, 1040, dtype=torch.float16)[:, 8:1032])  # every row starts 16 bytes into a line
    assert not needs(torch.empty(1000, 8, dtype=torch.float16).t())  # column-major: left as it is
    assert not needs(torch.empty(1, 1000, dtype=torch.float16))  # one row


def test_line_aligned_copy_keeps_the_values():
    x = torch.randn(5, 1000).half()
    y = matmul_op.line_aligned_copy(x)
    assert torch.equal(x, y) and y.stride() == (1024, 1)
    empty = matmul_op.line_aligned_copy(x, copy=False)
    assert empty.shape == x.shape and empty.stride() == (1024, 1)


@pytest.fixture
def on_hopper(monkeypatch):
    monkeypatch.setattr(matmul_op.env, "interpreting", lambda: False)
    monkeypatch.setattr(matmul_op.env, "is_hopper_or_newer", lambda device: True)


def problem(m, n, k, dtype=torch.float16, batch=1):
    return matmul_op._as_gemm(torch.randn(batch, m, k).to(dtype) if batch > 1 else torch.randn(m, k).to(dtype),
                              torch.randn(k, n).to(dtype))


def test_large_misaligned_fp16_operands_are_copied(on_hopper):
    p = problem(2100, 1500, 2000)  # 4000- and 3000-byte rows; 6.3e9 multiply-adds
    q = matmul_op._with_line_aligned_rows(p, None, None)
    assert q.row_copies == ("a", "b")
    assert q.a3.stride(1) * 2 % 128 == 0 and q.b3.stride(1) * 2 % 128 == 0
    assert torch.equal(q.a3, p.a3) and torch.equal(q.b3, p.b3)
    described = matmul_op._with_line_aligned_rows(p, None, None, copy=False)
    assert described.row_copies == ("a", "b") and described.a3.stride(1) == 2048


@pytest.mark.parametrize("make,path,config", [
    (lambda: problem(2100, 1500, 2000, torch.float32), None, None),  # fp16/bf16 only
    (lambda: problem(1000, 1000, 1000), None, None),  # below ALIGN_COPY_MIN_WORK: the copy costs more
    (lambda: problem(2100, 1500, 2000), "descriptor", None),  # a forced path takes the operands as they are
    (lambda: problem(2100, 1500, 2000), None, "fixed"),
])
def test_when_nothing_is_copied(on_hopper, make, path, config):
    p = make()
    assert matmul_op._with_line_aligned_rows(p, path, config) is p


def test_a_batch_sharing_b_is_one_gemm_and_is_copied(on_hopper):
    p = problem(700, 1500, 2000, batch=3)  # folded into 2100 rows
    assert p.a3.shape[0] == 1 and matmul_op._with_line_aligned_rows(p, None, None).row_copies == ("a", "b")


def test_a_batch_of_gemms_is_left_alone(on_hopper):
    a, b = torch.randn(3, 700, 2000).half(), torch.randn(3, 2000, 1500).half()
    p = matmul_op._as_gemm(a, b)
    assert p.a3.shape[0] == 3 and matmul_op._with_line_aligned_rows(p, None, None) is p


def test_aligned_operands_are_left_alone(on_hopper):
    a, b = on_lines(2048, 1024), on_lines(1024, 4096)
    assert matmul_op._with_line_aligned_rows(matmul_op._as_gemm(a, b), None, None).row_copies == ()


def test_nothing_is_copied_off_hopper_or_under_the_interpreter():
    p = problem(2100, 1500, 2000)
    assert matmul_op._with_line_aligned_rows(p, None, None) is p
    assert matmul_op.describe_plan(torch.randn(300, 200).half(), torch.randn(200, 100).half())["row_copies"] == []
