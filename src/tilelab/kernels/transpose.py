"""Copying a matrix into transposed storage, tile by tile.

Only `@triton.jit` code lives here; `tilelab.ops.matmul` launches it (to give
Hopper's tf32 wgmma a K-major B).

A naive copy of `x.t()` reads along rows and writes along columns: one of the
two is strided, and every access touches a different 32-byte sector. Here each
program loads a [BLOCK, BLOCK] tile with reads along the source's rows, and
stores it transposed with writes along the destination's rows; the register
shuffle in between (`tl.trans`) goes through shared memory, where a stride
costs nothing.
"""

import triton
import triton.language as tl


@triton.jit
def transpose_kernel(
    src_ptr, dst_ptr,
    R, C,
    stride_sb, stride_sr, stride_sc,
    stride_db, stride_dr, stride_dc,
    BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr,
):
    """dst[b, c, r] = src[b, r, c] for a [batch, R, C] source. Grid: (cdiv(R, BLOCK_R), cdiv(C, BLOCK_C), batch)."""
    batch = tl.program_id(2).to(tl.int64)
    rows = tl.program_id(0).to(tl.int64) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_C + tl.arange(0, BLOCK_C)
    inside = (rows[:, None] < R) & (cols[None, :] < C)
    tile = tl.load(src_ptr + batch * stride_sb + rows[:, None] * stride_sr + cols[None, :] * stride_sc, mask=inside)
    dst = dst_ptr + batch * stride_db + cols[:, None] * stride_dr + rows[None, :] * stride_dc
    tl.store(dst, tl.trans(tile), mask=tl.trans(inside))
