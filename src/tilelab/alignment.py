"""Where rows start in memory: the byte rules TMA and the L2 reward, and tensors allocated to follow them.

Hopper's TMA needs a 16-byte aligned base and row stride (`padded_row_stride`). The L2 serves reads in 32-byte
sectors. A 128-byte piece of a row that starts 16 bytes into a sector touches five sectors instead of four:
fp16 rows of 1000, 3000 or 5000 elements do that on every other row (lesson 9, `explain alignment`). tilelab
gives its own outputs rows on 128-byte lines (`output_row_stride`); `empty_aligned` and `to_aligned` give a
caller's inputs the same, so a chain of products never reads a row off its sectors.

No triton here: `import tilelab` stays free of it.
"""

import math
from collections.abc import Sequence

import torch

from tilelab import contracts

TMA_ALIGN = 16  # bytes: TMA needs 16-byte aligned base addresses and row strides
SECTOR_BYTES = 32  # the unit L2 serves reads in
LINE_BYTES = 128  # an L2 cache line: where TMA reads and writes are cheapest to start


def padded_row_stride(width: int, element_size: int) -> int:
    """Smallest row stride >= width (in elements) whose byte size is a multiple of 16.

    Outputs of awkward widths (N=255 in fp16 is 510 bytes) get rows padded
    to 512 bytes, so the descriptor path can still store them.
    """
    return _stride_in_units(width, element_size, TMA_ALIGN)


def output_row_stride(width: int, element_size: int) -> int:
    """The row stride (in elements) tilelab gives an output it stores through TMA: a row of at least one
    128-byte line starts on a line, a shorter one on 16 bytes (`padded_row_stride`).

    Measured on the H200 (results/h200-output-alignment-probe.log, 10 rounds in turns): 1000-wide fp16/bf16
    rows padded from 2000 to 2048 bytes took 1000^3 from 12.8 to 12.4 us (fp16) and 12.8 to 12.2 (bf16), and
    3000^3 from 129.0 to 127.2 and 128.5 to 126.8 us.
    """
    return _stride_in_units(width, element_size, _row_start_bytes(width, element_size))


def _stride_in_units(width: int, element_size: int, unit: int) -> int:
    """The smallest row stride >= width (elements; one unit's worth for width 0) whose bytes are a multiple
    of `unit`."""
    per_unit = unit // math.gcd(unit, element_size)  # elements in the smallest whole number of units
    return -(-width // per_unit) * per_unit if width > 0 else per_unit


def _row_start_bytes(width: int, element_size: int) -> int:
    """Where rows of `width` elements start (`output_row_stride`, `empty_aligned`): on a line, or on TMA's 16
    bytes for rows shorter than a line."""
    return LINE_BYTES if width * element_size >= LINE_BYTES else TMA_ALIGN


def _size_tuple(size) -> tuple[int, ...]:
    if len(size) == 1 and isinstance(size[0], (Sequence, torch.Size)):
        size = tuple(size[0])
    try:
        return tuple(contracts.as_int(d, "size", low=0) for d in size)
    except contracts.ContractError:
        raise contracts.ShapeError(f"size must be non-negative ints, as torch.empty takes them; got {size!r}") from None


def empty_aligned(*size, dtype: torch.dtype | None = None, device=None) -> torch.Tensor:
    """Like `torch.empty(*size, dtype=..., device=...)`, but every row (the last dimension) starts on a
    128-byte line (on 16 bytes if a row is shorter than a line), as tilelab's own outputs do.

    The result is a view into a wider buffer: its row stride is `output_row_stride(cols)`, so a
    `tilelab.empty_aligned(1000, 1000, dtype=torch.float16)` has strides (1024, 1). tilelab.matmul reads
    such views as they are, without copying them. A 1-D tensor is one row: it starts on a line.
    """
    shape = _size_tuple(size)
    dtype = torch.get_default_dtype() if dtype is None else dtype
    if not isinstance(dtype, torch.dtype):
        raise contracts.DTypeError(f"dtype must be a torch.dtype; got {dtype!r}")
    element_size = dtype.itemsize
    cols = shape[-1] if shape else 1
    row = output_row_stride(cols, element_size) if len(shape) >= 2 else cols
    outer = math.prod(shape[:-1]) if len(shape) >= 2 else 1
    # Slack for the base: the allocator's alignment need not be a line (the CPU's is 64 bytes).
    slack = LINE_BYTES // math.gcd(LINE_BYTES, element_size)
    buffer = torch.empty(outer * row + slack, dtype=dtype, device=device)
    start_bytes = _row_start_bytes(cols, element_size)
    offset = (-buffer.data_ptr() % start_bytes) // element_size
    if len(shape) < 2:
        return buffer[offset:offset + cols].view(shape)
    rows = buffer[offset:offset + outer * row].view(*shape[:-1], row)
    return rows[..., :cols]


def rows_aligned(x: torch.Tensor) -> bool:
    """Whether every row of `x` starts where `empty_aligned` would start it: unit stride along the last
    dimension, and the base and every outer stride a multiple of a line (of 16 bytes for rows shorter
    than a line)."""
    contracts.require_tensor(x, "x")
    if x.dim() == 0:
        return True
    if x.shape[-1] > 1 and x.stride(-1) != 1:
        return False
    start_bytes = _row_start_bytes(x.shape[-1], x.element_size())
    outer = [x.stride(d) * x.element_size() for d in range(x.dim() - 1) if x.shape[d] > 1]
    return all(v % start_bytes == 0 for v in (x.data_ptr(), *outer))


def to_aligned(x: torch.Tensor) -> torch.Tensor:
    """`x` itself if its rows start where `empty_aligned` would start them (`rows_aligned`), otherwise a copy
    into `empty_aligned` storage. Copy a matrix once, then multiply it many times: a 1000-wide fp16 weight
    read off 32-byte sectors costs every product that reads it (docs/PERFORMANCE-HISTORY.md, fifteenth session,
    "Rows off sectors")."""
    if rows_aligned(x):
        return x
    aligned = empty_aligned(tuple(x.shape), dtype=x.dtype, device=x.device)
    return aligned.copy_(x)  # differentiable, as .contiguous() is
