"""Operands whose rows TMA cannot read, copied onto 128-byte lines before a large fp16/bf16 matmul.

TMA reads rows whose start and stride are multiples of 16 bytes. An fp16 row of 1001, 1500 or 50257 elements
is not, and such a product ran on the pointer path, with loads as narrow as the rows' alignment: one element
at a time for odd rows. Copying such an operand into rows that start on lines (`copy_rows_kernel`, 16-byte
vectors where the rows allow) opens the TMA paths, and the copy costs less than it saves once the product
is large enough for those paths (`plan_matmul` takes them from HOST_DESCRIPTOR_MIN_WORK on). Measured on the
H200, in turns with torch (call QQQQQQQQQQ, results/h200-unaligned-copy-probe.log, fp16, us):

    shape              pointer path   copies, then TMA   on lines already   torch
    1001^3                  156.0          21.6               9.3           32.3
    1024x1024x1001           46.6          14.4               8.9           30.8
    1004^3                   19.7          16.8               9.2           23.7
    1500^3                   38.8          28.8              18.5           63.3
    4100^3                  426.2         260.3             216.0          641.6
    4096x50257x1024        2006.8         756.0             584.0         3270.2

Where the operands on lines would still take the pointer or split-K path (604^3: 14.8 against 18.7 us
copied; 128x4100x4100: 33.9 against 50.3), nothing is copied. Rows already 16-byte aligned but off 32-byte
sectors are not copied either: there the copies lost or saved at most 6% (call PPPPPPPPPP,
results/h200-b-copy-probe-2.log), and A's rows are read in classes instead (`matmul_plan.row_classes`).

Each copy needs as much memory again as its operand, for the call's duration. Where the GPU has not that
much at the first call, the product runs on the pointer path as before; a replay that runs out raises.
"""

import dataclasses
import math

import torch
import triton

from tilelab import env
from tilelab.alignment import LINE_BYTES, output_row_stride
from tilelab.ops.bound_launch import bind_launch
from tilelab.ops.matmul_plan import HOST_DESCRIPTOR_MIN_WORK, operand_layout

LINE_COPY_DTYPES = (torch.float16, torch.bfloat16)
# The paths a copy opens (what `plan_matmul` picks for the operands on lines); split-K reads through pointers
# below 256 rows, and on the pointer path the copy buys nothing but wider loads.
TMA_PATHS = ("descriptor", "persistent", "pingpong")
COPY_BLOCK_ROWS = 4
COPY_BLOCK_ELEMENTS = 1024  # per row and program
MAX_GRID_Z = 65535  # CUDA's limit on grid axis 2, which carries the batch
VECTOR_BYTES = 16


@dataclasses.dataclass(frozen=True)
class LineCopy:
    """One operand's copy onto lines: what a replay needs to make it again from a new source."""

    source_ptr: int  # the caller's operand
    launch: tuple | None  # (compiled, grid, arguments) of the single launch that made it; None if several
    buffer_shape: tuple[int, ...]  # [batch, rows, row stride]: the copy's rows, as `line_aligned_rows` takes


def operands_to_copy(a3: torch.Tensor, b3: torch.Tensor, path: str | None, config) -> tuple[bool, bool]:
    """Which of A and B to copy before planning on the copies: those TMA cannot read, for one fp16/bf16
    product tilelab plans itself on a Hopper GPU, at least HOST_DESCRIPTOR_MIN_WORK multiply-adds. An operand
    without a unit stride in either of its last two dimensions is left alone (the copy reads whole rows)."""
    if (path is not None or config is not None or a3.dtype not in LINE_COPY_DTYPES or env.interpreting()
            or not env.is_hopper_or_newer(a3.device)):
        return False, False
    _, m, k = a3.shape
    n = b3.shape[2]
    if max(a3.shape[0], b3.shape[0]) * m * n * k < HOST_DESCRIPTOR_MIN_WORK:
        return False, False
    return tuple(not operand_layout(x).tma_ok and _unit_stride(x) is not None for x in (a3, b3))


def _unit_stride(x3: torch.Tensor) -> int | None:
    """The dimension (2: row-major, 1: column-major) along which x3's elements are adjacent, or None."""
    for dim in (2, 1):
        if x3.stride(dim) == 1 or x3.shape[dim] == 1:
            return dim
    return None


def line_aligned_rows(buffer_shape: tuple[int, ...], like: torch.Tensor) -> torch.Tensor:
    """A fresh [batch, rows, row stride] tensor whose start is on a 128-byte line (so every row is, the row
    stride being `output_row_stride`'s): the allocator's block, cut a few elements in if it starts elsewhere."""
    slack = LINE_BYTES // like.element_size()
    flat = like.new_empty(math.prod(buffer_shape) + slack)
    offset = (-flat.data_ptr() % LINE_BYTES) // like.element_size()
    return flat[offset:offset + math.prod(buffer_shape)].view(buffer_shape)


@dataclasses.dataclass(frozen=True)
class Lined:
    """An operand's storage on lines, allocated (`allocate_on_lines`) and filled only once the plan says it pays."""

    view: torch.Tensor  # what the matmul reads, in the operand's shape and orientation
    source_rows: torch.Tensor  # the operand as [batch, rows, cols] with unit column stride
    rows: torch.Tensor  # the copy's rows, the same shape
    buffer_shape: tuple[int, ...]
    source_ptr: int

    def fill(self) -> LineCopy:
        return LineCopy(self.source_ptr, copy_rows(self.source_rows, self.rows), self.buffer_shape)


def allocate_on_lines(x3: torch.Tensor) -> Lined:
    """Storage for a copy of the [batch, rows, cols] operand x3 whose rows start on 128-byte lines, in x3's own
    orientation (a column-major x3 stays column-major). A B shared by the batch (batch stride 0) is copied
    once, and its copy shared the same way."""
    shared = x3.shape[0] > 1 and x3.stride(0) == 0
    source = x3[:1] if shared else x3
    column_major = source.stride(2) != 1 and _unit_stride(source) == 1
    source_rows = source.transpose(1, 2) if column_major else source  # unit stride along the last dimension
    batch, r, c = source_rows.shape
    buffer_shape = (batch, r, output_row_stride(c, x3.element_size()))
    rows = line_aligned_rows(buffer_shape, x3)[:, :, :c]
    view = rows.transpose(1, 2) if column_major else rows
    return Lined(view.expand(x3.shape) if shared else view, source_rows, rows, buffer_shape, x3.data_ptr())


def run_group(src: torch.Tensor, dst: torch.Tensor) -> int:
    """The elements each vector of `copy_rows_kernel` moves: the largest power of two, up to 16 bytes, dividing
    the row length, both row and batch strides and both base addresses (in elements)."""
    es = src.element_size()
    group = VECTOR_BYTES // es
    while group > 1 and any(v % group for v in (src.shape[2], *_row_strides(src), *_row_strides(dst),
                                                  src.data_ptr() // es, dst.data_ptr() // es)):
        group //= 2
    return group


def _row_strides(x: torch.Tensor) -> tuple[int, int]:
    """(batch stride, row stride); a batch of one has no batch stride to honour."""
    return (x.stride(0) if x.shape[0] > 1 else 0), x.stride(1)


def copy_rows(src: torch.Tensor, dst: torch.Tensor) -> tuple | None:
    """dst[...] = src[...] for [batch, rows, cols] views with unit column strides (`copy_rows_kernel`); returns
    (compiled, grid, arguments) of the launch if it took a single one (a batch over MAX_GRID_Z takes more)."""
    from tilelab.kernels.row_copy import copy_rows_kernel

    batch, rows, cols = src.shape
    group = run_group(src, dst)
    runs, block_runs = cols // group, COPY_BLOCK_ELEMENTS // group
    launches = []
    for start in range(0, batch, MAX_GRID_Z):
        s, d = src[start:start + MAX_GRID_Z], dst[start:start + MAX_GRID_Z]
        grid = (triton.cdiv(rows, COPY_BLOCK_ROWS), triton.cdiv(runs, block_runs), s.shape[0])
        args = (s, d, rows, runs, *_row_strides(s), *_row_strides(d), COPY_BLOCK_ROWS, block_runs, group)
        launches.append((copy_rows_kernel[grid](*args, num_warps=4), grid, args))
    return launches[0] if len(launches) == 1 else None


def bound_copies(copies: tuple) -> tuple:
    """What a replay keeps of a first call's copies ((name, LineCopy) each): ("a" or "b", the copy's launch bound
    to Triton's C launcher, the copy's [batch, rows, stride])."""
    return tuple((name, bind_launch(*made.launch[:2], made.launch[2][2:]), made.buffer_shape) for name, made in copies)


def copy_again(bound: tuple, stream, a: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """A replay's copies (`bound_copies`) run from this call's A and B into fresh buffers; returns the (A, B) the
    matmul's launch reads: a buffer where an operand was copied, only its address reaching the launch."""
    for name, copy, buffer_shape in bound:
        source = a if name == "a" else b
        lined = line_aligned_rows(buffer_shape, source)
        copy(stream, source.data_ptr(), lined.data_ptr())
        a, b = (lined, b) if name == "a" else (a, lined)
    return a, b
