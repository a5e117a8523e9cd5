"""Tensor descriptors built on the host for the matmul family's TMA kernels (`host_descriptors`), and the
scratch memory Triton asks for where a kernel builds its own (`ensure_descriptor_scratch`)."""

import torch
import triton
from triton.runtime import _allocation as _triton_allocation
from triton.tools.tensor_descriptor import TensorDescriptor

from tilelab import env
from tilelab.ops.matmul_plan import OperandLayout, batch_stride


def host_descriptors(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, a_layout: OperandLayout,
                     b_layout: OperandLayout, block_m: int, block_n: int, block_k: int, c_block_n: int,
                     row_classes: int = 1):
    """Tensor descriptors for A [M, K], B [K, N] and C [M, N], built on the host: of one GEMM's 2-D views, or
    of a batch's [batch, rows, cols] views.

    They travel as kernel parameters (HOST_DESCRIPTORS=True), so no program first writes descriptors to
    global memory and fences them, as `tl.make_tensor_descriptor` does. A and B are described as stored,
    like `operand_descriptors` does inside a kernel; C's block is [block_m, c_block_n]. A batch is described
    once, in 3-D with [1, rows, cols] blocks (`load_block` in the kernels); an operand the whole batch shares
    (batch stride 0) as the one matrix it is. With row_classes > 1, A (stored [M, K]) and C are described by
    class instead (`row_class_descriptor`).
    """
    if row_classes > 1:
        return (row_class_descriptor(a, row_classes, a_layout.row_stride, [block_m, block_k]),
                stored_descriptor(b, b_layout.row_major, b_layout.row_stride, [block_k, block_n]),
                row_class_descriptor(c, row_classes, c.stride(-2), [block_m, c_block_n]))
    a_desc, b_desc = host_operand_descriptors(a, b, a_layout, b_layout, block_m, block_n, block_k)
    return a_desc, b_desc, stored_descriptor(c, True, c.stride(-2), [block_m, c_block_n])


def host_operand_descriptors(a: torch.Tensor, b: torch.Tensor, a_layout: OperandLayout, b_layout: OperandLayout,
                             block_m: int, block_n: int, block_k: int):
    """`host_descriptors` for A and B only (a kernel that writes C through pointers)."""
    return (stored_descriptor(a, a_layout.row_major, a_layout.row_stride, [block_m, block_k]),
            stored_descriptor(b, b_layout.row_major, b_layout.row_stride, [block_k, block_n]))


def stored_descriptor(x: torch.Tensor, row_major: bool, row_stride: int, block: list[int]) -> TensorDescriptor:
    """A descriptor of `x` ([rows, cols] or [batch, rows, cols]) in the orientation it is stored in: [rows, cols]
    blocks of `block` when row-major, else [cols, rows] with the block turned too. 3-D when `x` holds more than
    one matrix; a batch of one, or one matrix broadcast (batch stride 0), is 2-D."""
    if x.dim() == 3 and batch_stride(x) == 0:
        x = x[0]
    rows, cols = x.shape[-2:]
    shape, block = ([rows, cols], list(block)) if row_major else ([cols, rows], list(block[::-1]))
    if x.dim() == 2:
        return TensorDescriptor(x, shape, [row_stride, 1], block)
    return TensorDescriptor(x, [x.shape[0], *shape], [x.stride(0), row_stride, 1], [1, *block])


def row_class_descriptor(x: torch.Tensor, classes: int, row_stride: int, block: list[int]) -> TensorDescriptor:
    """A row-major [rows, cols] matrix described as [classes, rows / classes, cols]: class r holds rows r,
    r + classes, ... (`row_classes`), with [1, *block] blocks. A batch [batch, rows, cols] is described as
    [batch, classes, rows / classes, cols] with [1, 1, *block] blocks; a batch of one, or one matrix the
    batch shares (batch stride 0), as the one matrix it is (`stored_descriptor`)."""
    if x.dim() == 3 and (x.shape[0] == 1 or batch_stride(x) == 0):
        x = x[0]
    rows, cols = x.shape[-2:]
    shape, strides = [classes, rows // classes, cols], [row_stride, classes * row_stride, 1]
    if x.dim() == 2:
        return TensorDescriptor(x, shape, strides, [1, *block])
    return TensorDescriptor(x, [x.shape[0], *shape], [x.stride(0), *strides], [1, 1, *block])


def _allocate_scratch(size: int, alignment: int, stream):
    device = "cpu" if env.interpreting() else "cuda"
    return torch.empty(size, dtype=torch.int8, device=device)


def ensure_descriptor_scratch() -> None:
    """Descriptors built inside a kernel live in a global scratch buffer that Triton asks us for.

    Triton keeps its allocator in a ContextVar, i.e. per thread: autograd runs backward passes on its own
    threads, so this is checked at every launch, and an allocator the caller installed is left alone.
    """
    if _triton_allocation._allocator.get() is _triton_allocation._NULL_ALLOCATOR:
        triton.set_allocator(_allocate_scratch)
