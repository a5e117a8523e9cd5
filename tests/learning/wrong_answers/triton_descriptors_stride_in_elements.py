"""The row stride is tested in elements, not bytes: fp16 rows of 8 values fail, fp32 rows of 12 pass."""

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

TMA_ALIGN = 16  # bytes: a descriptor's base address and every stride but the last are multiples of this


def descriptor_fits(t: torch.Tensor) -> bool:
    """Whether a 2-D tensor can be described as it is: rows of unit stride, its start and its row stride
    multiples of 16 bytes."""
    return (t.dim() == 2 and t.stride(1) == 1 and t.data_ptr() % TMA_ALIGN == 0
            and t.stride(0) % TMA_ALIGN == 0)


@triton.jit
def matmul_descriptor_kernel(a_desc, b_desc, c_desc, M, N, K,
                             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    off_m = tl.program_id(0) * BLOCK_M  # a descriptor is addressed in elements, not in tiles
    off_n = tl.program_id(1) * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = a_desc.load([off_m, k])  # past the descriptor's shape the tile holds zeros: no mask
        b = b_desc.load([k, off_n])
        acc = tl.dot(a, b, acc)
    c_desc.store([off_m, off_n], acc)  # past C's shape nothing is written but the rest of a row's last 16 bytes


def launch_descriptor_matmul(a, b, c, block_m=32, block_n=32, block_k=32):
    for name, t in (("a", a), ("b", b), ("c", c)):
        if not descriptor_fits(t):
            raise ValueError(f"{name} cannot be described for TMA: its rows need unit stride, and its start and row "
                             f"stride must be multiples of 16 bytes (strides {tuple(t.stride())}, "
                             f"{t.element_size()}-byte elements)")
    m, k = a.shape
    n = b.shape[1]
    a_desc = TensorDescriptor(a, list(a.shape), list(a.stride()), [block_m, block_k])
    b_desc = TensorDescriptor(b, list(b.shape), list(b.stride()), [block_k, block_n])
    c_desc = TensorDescriptor(c, list(c.shape), list(c.stride()), [block_m, block_n])
    grid = (triton.cdiv(m, block_m), triton.cdiv(n, block_n))
    matmul_descriptor_kernel[grid](a_desc, b_desc, c_desc, m, n, k, BLOCK_M=block_m, BLOCK_N=block_n,
                                   BLOCK_K=block_k)
    return c
