"""Batched matmul entries: C[b] = A[b] @ B[b] for every b, shapes given as batch M N K.

`bmm` has B stored [batch, K, N]; `bmm_nt` has B stored [batch, N, K] and passed as its transposed view, as
attention's Q @ K^T and per-entry nn.Linear weights hand it over. Both reuse matmul's variants, tolerance and
reference: tilelab.matmul and torch.matmul take batches as they are.
"""

import torch

from tilelab.bench import op_matmul
from tilelab.bench.registry import OpSpec

BMM_SHAPES = (
    # attention-like: 32 heads of 1024 tokens with head dim 128, scores (K = 128) and scores @ V (N = 128)
    (32, 1024, 1024, 128), (32, 1024, 128, 1024),
    # square batches (and one with a short K): a few large GEMMs, each enough to fill the GPU alone
    (8, 2048, 2048, 2048), (4, 4096, 4096, 4096), (8, 4096, 4096, 1024),
    # many small matrices: each alone fills few SMs, the batch must fill the rest
    (64, 512, 512, 512), (256, 128, 128, 128),
    # misaligned rows: 1000 fp16/bf16 elements (2000 bytes) start every other row off a 32-byte sector,
    # and no tile size divides 1000
    (16, 1000, 1000, 1000),
)

BMM_NT_SHAPES = (
    # attention scores Q @ K^T: heads x tokens x tokens over a short head dim
    (32, 1024, 1024, 128), (16, 2048, 2048, 128), (64, 512, 512, 64),
    # per-entry linear layers with their weights stored [N, K]
    (8, 4096, 4096, 1024),
    # misaligned rows, as for bmm
    (16, 1000, 1000, 1000),
)

# Small enough for Triton's interpreter, with partial tiles in M, N and K and more than one batch entry.
CHECK_SHAPES = ((2, 64, 64, 64), (3, 33, 70, 48), (2, 127, 65, 31))


def _randn(shape, dtype, device, generator):
    # Standard normal in float32, then rounded, as op_matmul does: never zeros, never a pattern.
    return torch.randn(shape, generator=generator, device=device, dtype=torch.float32).to(dtype)


def make_inputs(shape, dtype, device, generator):
    batch, m, n, k = shape
    a = _randn((batch, m, k), dtype, device, generator)
    b = _randn((batch, k, n), dtype, device, generator)
    return a, b


def make_inputs_nt(shape, dtype, device, generator):
    batch, m, n, k = shape
    a = _randn((batch, m, k), dtype, device, generator)
    b_stored = _randn((batch, n, k), dtype, device, generator)
    return a, b_stored.transpose(1, 2)  # [batch, K, N] with unit stride along K


def flops(shape):
    batch, m, n, k = shape
    return 2 * batch * m * n * k


def bytes_moved(shape, dtype):
    batch, m, n, k = shape
    return batch * (m * k + k * n + m * n) * torch.empty((), dtype=dtype).element_size()


def _batched_op(name, default_shapes, inputs, description):
    return OpSpec(
        name=name,
        dims=("batch", "M", "N", "K"),
        default_shapes=default_shapes,
        check_shapes=CHECK_SHAPES,
        dtypes=("float16", "bfloat16", "float32"),
        make_inputs=inputs,
        reference=op_matmul.reference,  # torch.matmul in float64 on the inputs' device: batches included
        flops=flops,
        bytes_moved=bytes_moved,
        # registers computes one GEMM: on a batch it reports `unsupported` with that reason.
        variants=op_matmul.variants,
        tolerance=op_matmul.tolerance,
        metric="tflops",
        description=description,
    )


OPS = (
    _batched_op("bmm", BMM_SHAPES, make_inputs,
                "C[b] = A[b] @ B[b], A [batch, M, K], B [batch, K, N], both contiguous"),
    _batched_op("bmm_nt", BMM_NT_SHAPES, make_inputs_nt,
                "C[b] = A[b] @ B[b] with B stored [batch, N, K] and passed transposed (Q @ K^T, per-entry "
                "nn.Linear weights)"),
)
