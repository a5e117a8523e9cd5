"""Copying a matrix's rows into storage whose rows start on 128-byte lines.

Only `@triton.jit` code lives here; `tilelab.ops.line_copies` launches it, so that a matmul whose operand's
rows TMA cannot read (not 16-byte aligned: 1001 or 1500 fp16 elements) reads a copy that it can.

A copy is bound by memory, so it must move 16 bytes per load and store. Two things stop Triton from
vectorizing a plain `src + r * stride + c` copy: a row stride that it cannot prove is a multiple of the
vector (it learns divisibility only by 16, from its launcher), and a mask that may change inside a vector
(`c < cols`). So each row is read as runs of GROUP elements: the launcher proves GROUP divides the row
length, the strides and the base, `known_multiple` tells the compiler, and the mask depends on the run alone.
"""

import triton
import triton.language as tl

from tilelab.kernels.matmul import known_multiple


@triton.jit
def copy_rows_kernel(
    src_ptr, dst_ptr,
    R, RUNS,
    stride_sb, stride_sr,
    stride_db, stride_dr,
    BLOCK_R: tl.constexpr, BLOCK_RUNS: tl.constexpr, GROUP: tl.constexpr,
):
    """dst[b, r, c] = src[b, r, c] for c < RUNS * GROUP, both with unit column stride.
    Grid: (cdiv(R, BLOCK_R), cdiv(RUNS, BLOCK_RUNS), batch)."""
    batch = tl.program_id(2).to(tl.int64)
    rows = tl.program_id(0).to(tl.int64) * BLOCK_R + tl.arange(0, BLOCK_R)[:, None, None]
    runs = tl.program_id(1) * BLOCK_RUNS + tl.arange(0, BLOCK_RUNS)[None, :, None]
    cols = runs * GROUP + tl.arange(0, GROUP)[None, None, :]
    inside = (rows < R) & (runs < RUNS)
    src = (src_ptr + batch * known_multiple(stride_sb, GROUP) + rows * known_multiple(stride_sr, GROUP) + cols)
    dst = (dst_ptr + batch * known_multiple(stride_db, GROUP) + rows * known_multiple(stride_dr, GROUP) + cols)
    tl.store(dst, tl.load(src, mask=inside), mask=inside)
