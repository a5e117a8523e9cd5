"""Exercise 12 (lesson 8): lesson 6's tiled matmul as a Triton kernel.

C (M x N, float32) = A (M x K, float16) @ B (K x N, float16). Any of them may be a
strided view, so use the strides you are given. Run:  python -m learning.check triton_matmul
"""

import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """Program (pid_m, pid_n) computes the BLOCK_M x BLOCK_N tile of C at (pid_m, pid_n)."""
    # TODO: row and column offsets of the tile; an fp32 accumulator; a loop over K tiles that
    #       loads masked A and B tiles and adds tl.dot of them; one masked store at the end.
    pass


def launch_matmul(a, b, c, block_m=32, block_n=32, block_k=32):
    """Launch matmul_kernel on a 2-D grid covering C. Block sizes must be at least 16 for tl.dot."""
    raise NotImplementedError("launch_matmul: grid = (tiles along M, tiles along N)")
