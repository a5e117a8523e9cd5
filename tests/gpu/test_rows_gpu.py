"""Row kernels on the GPU: long rows in two passes, replays, graphs, and rows past 2**31 elements."""

import pytest
import torch

import tilelab
from tests.helpers import randn
from tests.interpreter.test_rows_interpreter import assert_close
from tilelab.ops import rows as rows_op
from tilelab.reference import rmsnorm_reference, softmax_reference

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32], ids=str)
@pytest.mark.parametrize("cols", [4096, 5000, rows_op.MAX_BLOCK, 128256])
def test_wide_rows(dtype, cols, rng):
    x = (randn((9, cols), torch.float32, "cuda", rng) * 4).to(dtype)
    weight = randn((cols,), dtype, "cuda", rng)
    assert_close(tilelab.softmax(x), softmax_reference(x), dtype, f"softmax {cols}")
    assert_close(tilelab.rmsnorm(x, weight), rmsnorm_reference(x, weight), dtype, f"rmsnorm {cols}")
    residual = randn((9, cols), dtype, "cuda", rng)
    y, h = tilelab.rmsnorm(x, weight, residual=residual)
    assert_close(y, rmsnorm_reference(x, weight, residual=residual), dtype, f"residual rmsnorm {cols}")


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32], ids=str)
@pytest.mark.parametrize("shape", [(4097, 128), (1001, 300), (63, 1000), (5, 2)])
def test_short_rows_several_per_program(dtype, shape, rng):
    """Several rows per program (`plan_rows`), a ragged last program, ALIGN 4 on rows of 300 and 1000."""
    x = (randn(shape, torch.float32, "cuda", rng) * 4).to(dtype)
    weight = randn((shape[1],), dtype, "cuda", rng)
    residual = randn(shape, dtype, "cuda", rng)
    assert rows_op.plan_rows(*shape, x.element_size()).rows > 1
    assert_close(tilelab.softmax(x), softmax_reference(x), dtype, f"softmax {shape}")
    y, h = tilelab.rmsnorm(x, weight, residual=residual)
    assert_close(y, rmsnorm_reference(x, weight, residual=residual), dtype, f"residual rmsnorm {shape}")
    assert_close(h, x.double() + residual.double(), dtype, f"the sum {shape}")


def test_replays_read_the_new_tensors(rng):
    rows_op._REPLAYS.clear()
    for call in range(3):
        x = randn((33, 700), torch.float16, "cuda", rng) * 3
        weight = randn((700,), torch.float16, "cuda", rng)
        residual = randn((33, 700), torch.float16, "cuda", rng)
        assert_close(tilelab.softmax(x), softmax_reference(x), torch.float16, f"softmax call {call}")
        assert_close(tilelab.rmsnorm(x, weight), rmsnorm_reference(x, weight), torch.float16, f"call {call}")
        y, h = tilelab.rmsnorm(x, None, residual=residual)
        assert_close(y, rmsnorm_reference(x, None, residual=residual), torch.float16, f"residual call {call}")
        assert len(rows_op._REPLAYS) == 3


def test_graph_replay(rng):
    x = randn((64, 1000), torch.float32, "cuda", rng)
    tilelab.softmax(x)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        y = tilelab.softmax(x)
    x.copy_(randn((64, 1000), torch.float32, "cuda", rng))
    graph.replay()
    torch.cuda.synchronize()
    assert_close(y, softmax_reference(x), torch.float32, "graph")


def test_rows_past_int32_offsets(rng):
    """2**31 + 2**20 fp16 elements: the last rows start past 2**31 elements (the row index is 64-bit)."""
    rows, cols = 2**21 + 2**10, 1024
    x = torch.empty((rows, cols), dtype=torch.float16, device="cuda").normal_()
    y = tilelab.softmax(x)
    assert_close(y[-3:], softmax_reference(x[-3:]), torch.float16, "last rows")
    z = tilelab.rmsnorm(x)
    assert_close(z[-3:], rmsnorm_reference(x[-3:]), torch.float16, "last rows")
