"""Exercise 23 (workshop I11): lesson 8's matmul with its tiles read and written through tensor descriptors.

C (M x N, float32) = A (M x K, float16) @ B (K x N, float16), as in exercise 12, but no pointer arithmetic and no
masks: a descriptor knows its tensor's shape, a load past it returns zeros and a store past it writes nothing.
Run:  python -m learning.check triton_descriptors
"""

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor  # noqa: F401 (the launcher builds three)


def descriptor_fits(t: torch.Tensor) -> bool:
    """Whether a 2-D tensor can be described as it is (TMA's rules for its start and strides)."""
    raise NotImplementedError("descriptor_fits: unit stride along a row; its start and its row stride in bytes")


@triton.jit
def matmul_descriptor_kernel(a_desc, b_desc, c_desc, M, N, K,
                             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """Program (pid_m, pid_n) computes the BLOCK_M x BLOCK_N tile of C at (pid_m, pid_n)."""
    # TODO: where the tile starts, in elements; an fp32 accumulator; a loop over K that loads A's and B's tiles
    #       with a_desc.load([row, col]) and adds tl.dot of them; one c_desc.store at the end.
    pass


def launch_descriptor_matmul(a, b, c, block_m=32, block_n=32, block_k=32):
    """Refuse (ValueError, naming it) an operand descriptor_fits rejects; describe a, b and c with
    TensorDescriptor(tensor, shape, strides, block_shape); launch one program per tile of C; return c."""
    raise NotImplementedError("launch_descriptor_matmul: three descriptors, then grid = (tiles along M, tiles along "
                              "N)")
