"""`tilelab.softmax` and `tilelab.rmsnorm`: the course's row kernels as library ops.

Contract check -> the tensor as rows [R, C] (a view where the strides allow one, else a copy) -> a plan
(`plan_rows`: rows per program, block, warps, alignment) -> the launch (`tilelab.kernels.rows`). The first
call with a given signature records its launch and later ones replay it, as `tilelab.matmul` does: these
kernels take microseconds, so Triton's binder would otherwise cost more than the work.
"""

from __future__ import annotations

import dataclasses
import math

import torch
import triton

from tilelab import contracts
from tilelab.ops import bound_launch

DTYPES = (torch.float16, torch.bfloat16, torch.float32)
# The widest block one program keeps in registers: 8192 float32 values are 16 per thread at 16 warps.
MAX_BLOCK = 8192
# Short rows come several to a program, until its tile holds this many elements (measured on the H200:
# docs/PERFORMANCE.md, "Row kernels").
TILE_ELEMENTS = 4096
VECTOR_BYTES = 16


@dataclasses.dataclass(frozen=True)
class RowPlan:
    """How `tilelab.kernels.rows` walks [n_rows, n_cols]: programs of `rows` whole rows, `block` columns at a
    time (the whole row at once when `one_block`), `num_warps` warps, and `align` (the kernels' ALIGN: the
    row length and row strides are multiples of it, so loads can be whole 16-byte vectors)."""

    block: int
    rows: int
    one_block: bool
    num_warps: int
    align: int

    def grid(self, n_rows: int) -> tuple[int]:
        return (triton.cdiv(n_rows, self.rows),)


def plan_rows(n_rows: int, n_cols: int, element_size: int, row_strides=(), unit_columns: bool = True,
              tile_elements: int | None = None) -> RowPlan:
    """The plan for rows of n_cols: the whole row in one block when it fits (else MAX_BLOCK-wide chunks, two
    passes); as many rows per program as fill `tile_elements` (TILE_ELEMENTS); 4 to 16 warps, about 8 to 16
    elements per thread (`row_warps`). row_strides: every tensor's row stride, for ALIGN (1 unless the columns
    are contiguous, or when Triton proves multiples of 16 by itself)."""
    block = min(triton.next_power_of_2(max(n_cols, 1)), MAX_BLOCK)
    one_block = n_cols <= block
    rows = 1
    if one_block:
        wanted = max(1, (tile_elements or TILE_ELEMENTS) // block)
        rows = min(wanted, triton.next_power_of_2(max(n_rows, 1)))
    common = math.gcd(n_cols, *row_strides) if unit_columns else 1
    align = 1 if common % 16 == 0 else math.gcd(common, VECTOR_BYTES // element_size)
    return RowPlan(block, rows, one_block, row_warps(rows * min(n_cols, block)), align)


def row_warps(elements: int) -> int:
    """Warps for a program that loads `elements` real (unmasked) values per block: one per 512, rounded to the
    nearest power of two, 4 to 16. Counted from the row, not the block: rows of 5000 fill 61% of an 8192-lane
    block, and on the H200 (fp16, results/h200-rows-probe.log) took 8 warps better than 16 (softmax 28.6
    against 32.5 us; RMSNorm 28.9 against 31.7), where rows that fill their block are level from 4 to 16."""
    per_512 = max(elements / 512, 1.0)
    return min(16, max(4, 1 << round(math.log2(per_512))))


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """torch.softmax(x, dim) in float32 arithmetic, in x's dtype and shape: contiguous when dim is the last,
    else a view of memory in which dim is innermost (the kernel's rows)."""
    traced = torch.compiler.is_compiling()  # then only the op has a fake implementation (no data pointers)
    key = None if traced else _softmax_key(x, dim)
    replay = _REPLAYS.get(key) if key is not None else None
    if replay is not None and bound_launch.no_launch_hooks():
        y = torch.empty_like(x, memory_format=torch.contiguous_format)
        replay(x.data_ptr(), y.data_ptr())
        return y
    _check_input(x, "x")
    dim = contracts.as_int(dim, "dim")
    if not -max(x.dim(), 1) <= dim < max(x.dim(), 1):
        raise contracts.ShapeError(f"dim={dim} is out of range for x of shape {tuple(x.shape)}")
    if x.dim() == 0:  # one value, its own row (torch allows dim 0 or -1 here)
        return softmax(x.reshape(1)).reshape(())
    if traced or torch.is_grad_enabled() and x.requires_grad:
        import tilelab.library  # noqa: F401  registers the op on first use

        return torch.ops.tilelab.softmax(x, dim)
    moved = x.movedim(dim, -1)
    y = torch.empty(moved.shape, dtype=x.dtype, device=x.device)
    if y.numel() > 0:
        rows, y_rows = _as_rows(moved), y.view(-1, y.shape[-1])
        from tilelab.kernels.rows import softmax_kernel

        n_rows, n_cols = rows.shape
        plan = plan_rows(n_rows, n_cols, x.element_size(), (rows.stride(0), y_rows.stride(0)), rows.stride(1) == 1)
        args = (rows, y_rows, n_rows, n_cols, *rows.stride(), y_rows.stride(0), plan.block, plan.rows,
                plan.one_block, plan.align)
        compiled = softmax_kernel[plan.grid(n_rows)](*args, num_warps=plan.num_warps)
        if key is not None and rows.data_ptr() == x.data_ptr() and dim in (-1, x.dim() - 1):
            _REPLAYS[key] = bound_launch.bind_launch_on_stream(compiled, (*plan.grid(n_rows), 1, 1), args[2:],
                                                            x.device)
    return y.movedim(-1, dim)


def rmsnorm(x: torch.Tensor, weight: torch.Tensor | None = None, eps: float = 1e-6,
            residual: torch.Tensor | None = None):
    """RMSNorm over the last dimension: x / sqrt(mean(x^2) + eps) * weight, in float32 arithmetic.

    With `residual`, the norm is of h = x + residual, and the call returns (y, h): the add that comes right
    before a transformer's norm, fused, its sum written once for the next layer to add to. Returns y (and h)
    contiguous, in x's dtype.
    """
    traced = torch.compiler.is_compiling()  # then only the ops have fake implementations (no data pointers)
    key = None if traced else _rmsnorm_key(x, weight, eps, residual)
    replay = _REPLAYS.get(key) if key is not None else None
    if replay is not None and bound_launch.no_launch_hooks():
        y = torch.empty_like(x)
        h = torch.empty_like(x) if residual is not None else y
        replay(x.data_ptr(), (residual if residual is not None else x).data_ptr(),
               (weight if weight is not None else x).data_ptr(), y.data_ptr(), h.data_ptr())
        return (y, h) if residual is not None else y
    _check_input(x, "x")
    if x.dim() == 0:
        raise contracts.ShapeError("x must have at least 1 dimension (the one normalized)")
    n = x.shape[-1]
    if weight is not None:
        contracts.require_vector(weight, "weight", n, "element of x's last dimension", x)
    if residual is not None:
        contracts.require_tensor(residual, "residual")
        if residual.shape != x.shape:
            raise contracts.ShapeError(f"residual must have x's shape {tuple(x.shape)}; got {tuple(residual.shape)}")
        contracts.require_same_dtype({"x": x, "residual": residual})
        contracts.require_runnable_device({"x": x, "residual": residual})
    eps = contracts.as_finite_nonnegative(eps, "eps")
    if traced or torch.is_grad_enabled() and any(t is not None and t.requires_grad for t in (x, weight, residual)):
        import tilelab.library  # noqa: F401  registers the op on first use

        if residual is None:
            return torch.ops.tilelab.rmsnorm(x, weight, float(eps))
        y, h = torch.ops.tilelab.residual_rmsnorm(x, residual, weight, float(eps))
        return y, h
    y = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    h = torch.empty(x.shape, dtype=x.dtype, device=x.device) if residual is not None else y
    if y.numel() > 0:
        from tilelab.kernels.rows import rmsnorm_kernel

        rows = _as_contiguous_rows(x)
        r_rows = _as_contiguous_rows(residual) if residual is not None else rows
        w = weight.contiguous() if weight is not None else rows
        y_rows, h_rows = y.view(-1, n), h.view(-1, n)
        strides = (rows.stride(0), r_rows.stride(0), y_rows.stride(0), h_rows.stride(0))
        plan = plan_rows(rows.shape[0], n, x.element_size(), strides)
        args = (rows, r_rows, w, y_rows, h_rows, rows.shape[0], n, float(eps), *strides, plan.block, plan.rows,
                plan.one_block, plan.align, residual is not None, weight is not None)
        compiled = rmsnorm_kernel[plan.grid(rows.shape[0])](*args, num_warps=plan.num_warps)
        same_memory = rows.data_ptr() == x.data_ptr() and (residual is None or r_rows.data_ptr() == residual.data_ptr())
        if key is not None and same_memory and (weight is None or w.data_ptr() == weight.data_ptr()):
            _REPLAYS[key] = bound_launch.bind_launch_on_stream(compiled, (*plan.grid(rows.shape[0]), 1, 1), args[5:],
                                                            x.device)
    return (y, h) if residual is not None else y


# -- helpers -----------------------------------------------------------------------------------------------


def _check_input(x, name: str) -> None:
    contracts.require_tensor(x, name)
    contracts.require_dtype(x, name, DTYPES)
    contracts.require_runnable_device({name: x})


def _as_rows(x: torch.Tensor) -> torch.Tensor:
    """x as [rows, cols] with any row and column stride: a view where its strides allow, else a copy."""
    try:
        return x.view(-1, x.shape[-1])
    except RuntimeError:
        return x.reshape(-1, x.shape[-1])


def _as_contiguous_rows(x: torch.Tensor) -> torch.Tensor:
    """x as [rows, cols] with unit column stride (RMSNorm's vector loads), copied only if it has none."""
    rows = _as_rows(x)
    return rows if rows.stride(1) == 1 or rows.shape[1] == 1 else rows.contiguous()


_REPLAYS: dict[tuple, object] = {}


def _signature(t: torch.Tensor) -> tuple:
    """Raises RuntimeError for a sparse tensor (no strides or storage), which the keys turn into None."""
    return t.shape, t.stride(), t.dtype, t.get_device(), t.data_ptr() % 16


def _softmax_key(x, dim) -> tuple | None:
    """A recorded softmax launch serves calls with the same signature (shapes, strides, dtype, device, 16-byte
    alignment, dim); None where none may (CPU, autograd, an argument the contract check must see)."""
    if not isinstance(x, torch.Tensor) or not x.is_cuda or (x.requires_grad and torch.is_grad_enabled()):
        return None
    if isinstance(dim, bool) or not isinstance(dim, int):
        return None
    try:
        return ("softmax", *_signature(x), dim)
    except RuntimeError:  # a sparse tensor: no strides or storage, no key (the contract check refuses it)
        return None


def _rmsnorm_key(x, weight, eps, residual) -> tuple | None:
    if not isinstance(x, torch.Tensor) or not x.is_cuda:
        return None
    parts = []
    for t in (x, weight, residual):
        if t is None:
            parts.append(None)
        elif not isinstance(t, torch.Tensor) or (t.requires_grad and torch.is_grad_enabled()):
            return None
        else:
            try:
                parts.append(_signature(t))
            except RuntimeError:  # a sparse tensor: no strides or storage, no key (the contract check refuses it)
                return None
    if isinstance(eps, bool) or not isinstance(eps, (int, float)):
        return None
    return ("rmsnorm", *parts, eps)
