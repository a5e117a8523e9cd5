"""Output rows on 128-byte lines (`output_row_stride`): what the TMA paths allocate."""

import pytest
import torch

from tilelab import alignment
from tilelab.ops import matmul as matmul_op
from tilelab.ops import matmul_plan


@pytest.mark.parametrize("width,element_size,expected", [
    (1000, 2, 1024),  # 2000-byte rows -> 2048
    (3000, 2, 3008),
    (1001, 2, 1024),
    (4096, 2, 4096), (64, 2, 64), (1000, 4, 1024), (255, 2, 256),
    (36, 2, 40), (7, 4, 8), (1, 2, 8), (0, 2, 8),  # shorter than a line: 16-byte padding only
])
def test_output_row_stride(width, element_size, expected):
    stride = alignment.output_row_stride(width, element_size)
    assert stride == expected and stride >= width
    line = alignment.LINE_BYTES
    assert (stride * element_size) % (line if width * element_size >= line else 16) == 0



@pytest.mark.parametrize("path,expected", [("descriptor", 1024), ("persistent", 1024), ("pointer", 1000)])
def test_tma_paths_allocate_line_aligned_output_rows(path, expected, monkeypatch):
    """The TMA paths store C through descriptors: rows on lines; the pointer path writes exactly [M, N]."""
    monkeypatch.setattr(matmul_op.env, "interpreting", lambda: True)  # plan as the interpreter would, on the CPU
    p = matmul_op._as_gemm(torch.randn(4, 64).half(), torch.randn(64, 1000).half())
    plan = matmul_plan.plan_matmul(p.a3, p.b3, path, "tf32", None)
    out = matmul_op._allocate_output(plan, p, torch.float16)
    assert out.shape == (1, 4, 1000) and out.stride(1) == expected
