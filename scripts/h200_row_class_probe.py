"""Can A's rows be read on sectors when they are stored off them? (run on the H200)

    PYTHONPATH=src:. python scripts/h200_row_class_probe.py [--rounds 10]

1000³'s 2000-byte rows start 16 bytes into a 32-byte sector on every other row, and TMA reads such rows from L2
at 5.4-5.7 TB/s against 8.0-9.8 on 128-byte lines (`h200_row_alignment_read_probe.py`). Every row of a box
starts at the same column, so no box of plain A can be on lines.

A's rows are C's rows, though, and a program may own any set of them. Rows r, r + R, r + 2R, ... (one "row
class") start at the same offset within a line when R rows span a whole number of lines (R = 8 for rows of
2000 bytes: 16000 = 125 lines). A program that owns one class reads its A through a descriptor with R rows'
stride, starting `shift` elements early (`shift` = the class's offset into its line): every box then starts on
a line. The columns before 0 come back as zeros from TMA, and so do B's rows before 0, read at the same
shifted K; K's loop takes one more step. C is stored through a descriptor of the same class. B's rows stay as
they are (off sectors on every other K row): only A gains.

R = 2 with a 32-byte unit puts the rows on sectors only. R = 1 is the same kernel with no change of rows, to
separate the in-kernel descriptors' cost from the alignment's gain.
"""

import argparse
import functools
import itertools

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

import tilelab
from scripts.turns import report_in_turns
from tilelab.kernels.matmul import grouped_tile
from tilelab.reference import matmul_reference, relative_error


@triton.jit
def matmul_row_class_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                            CLASSES: tl.constexpr, UNIT: tl.constexpr,
                            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                            GROUP_M: tl.constexpr):
    tiles_per_class = tl.cdiv(tl.cdiv(M, CLASSES), BLOCK_M)
    pid_m, pid_n = grouped_tile(tl.program_id(0), CLASSES * tiles_per_class * BLOCK_M, N, BLOCK_M, BLOCK_N,
                                GROUP_M)
    row_class = pid_m % CLASSES
    tile = pid_m // CLASSES
    class_rows = (M - row_class + CLASSES - 1) // CLASSES
    # Elements between the class's first row and the UNIT boundary before it.
    shift = (row_class * stride_am) % UNIT
    a_desc = tl.make_tensor_descriptor(a_ptr + row_class * stride_am, [class_rows, K], [CLASSES * stride_am, 1],
                                       [BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, [K, N], [stride_bk, 1], [BLOCK_K, BLOCK_N])
    c_desc = tl.make_tensor_descriptor(c_ptr + row_class * stride_cm, [class_rows, N], [CLASSES * stride_cm, 1],
                                       [BLOCK_M, BLOCK_N])
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for step in range(0, tl.cdiv(K + shift, BLOCK_K)):
        k = step * BLOCK_K - shift  # negative on the first step: TMA returns zeros there, for A and for B
        a = a_desc.load([tile * BLOCK_M, k])
        b = b_desc.load([k, pid_n * BLOCK_N])
        acc = tl.dot(a, b, acc)
    c_desc.store([tile * BLOCK_M, pid_n * BLOCK_N], acc.to(c_desc.dtype))


def row_class_matmul(a, b, c, classes, unit_bytes, block_m, block_n, block_k, stages, warps, group_m=8):
    m, k = a.shape
    n = b.shape[1]
    tiles = classes * triton.cdiv(triton.cdiv(m, classes), block_m) * triton.cdiv(n, block_n)
    matmul_row_class_kernel[(tiles,)](a, b, c, m, n, k, a.stride(0), b.stride(0), c.stride(0), classes,
                                      unit_bytes // a.element_size(), block_m, block_n, block_k, group_m,
                                      num_stages=stages, num_warps=warps)
    return c


@triton.jit
def matmul_row_class_host_kernel(a_desc, b_desc, c_desc, M, N, K, stride_am, CLASSES: tl.constexpr,
                                 UNIT: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                                 BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    """The same with descriptors built on the host: A and C as [CLASSES, M / CLASSES, cols], class first."""
    tiles_per_class = tl.cdiv(M // CLASSES, BLOCK_M)
    pid_m, pid_n = grouped_tile(tl.program_id(0), CLASSES * tiles_per_class * BLOCK_M, N, BLOCK_M, BLOCK_N,
                                GROUP_M)
    row_class = pid_m % CLASSES
    tile = pid_m // CLASSES
    shift = (row_class * stride_am) % UNIT
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for step in range(0, tl.cdiv(K + shift, BLOCK_K)):
        k = step * BLOCK_K - shift
        a = a_desc.load([row_class, tile * BLOCK_M, k]).reshape(BLOCK_M, BLOCK_K)
        b = b_desc.load([k, pid_n * BLOCK_N])
        acc = tl.dot(a, b, acc)
    c_desc.store([row_class, tile * BLOCK_M, pid_n * BLOCK_N],
                 acc.to(c_desc.dtype).reshape(1, BLOCK_M, BLOCK_N))


def row_class_host_launcher(a, b, c, classes, unit_bytes, block_m, block_n, block_k, stages, warps, group_m=8):
    """A launch with its descriptors built once (M a multiple of `classes`)."""
    m, k = a.shape
    n = b.shape[1]
    a_desc = TensorDescriptor(a, [classes, m // classes, k], [a.stride(0), classes * a.stride(0), 1],
                              [1, block_m, block_k])
    b_desc = TensorDescriptor.from_tensor(b, [block_k, block_n])
    c_desc = TensorDescriptor(c, [classes, m // classes, n], [c.stride(0), classes * c.stride(0), 1],
                              [1, block_m, block_n])
    tiles = classes * triton.cdiv(m // classes, block_m) * triton.cdiv(n, block_n)
    return lambda: matmul_row_class_host_kernel[(tiles,)](
        a_desc, b_desc, c_desc, m, n, k, a.stride(0), classes, unit_bytes // a.element_size(), block_m, block_n,
        block_k, group_m, num_stages=stages, num_warps=warps)


CONFIGS = {  # (BLOCK_M, BLOCK_N, BLOCK_K, stages, warps)
    "small": [(64, 128, 128, 4, 4), (128, 64, 128, 4, 4), (128, 64, 64, 6, 4), (64, 128, 64, 6, 4),
              (128, 128, 64, 4, 8), (128, 128, 128, 3, 8)],
    "large": [(128, 256, 64, 3, 8), (128, 128, 64, 4, 8), (128, 128, 128, 3, 8)],
}
SHAPES = [((1000, 1000, 1000), torch.float16, "small"), ((1000, 1000, 1000), torch.bfloat16, "small"),
          ((3000, 3000, 3000), torch.float16, "large"), ((1000, 1000, 4000), torch.float16, "small"),
          ((5000, 5000, 5000), torch.float16, "large")]


def probe_shape(m, n, k, dtype, configs, in_kernel, rounds):
    a = torch.randn(m, k, device="cuda", dtype=dtype)
    b = torch.randn(k, n, device="cuda", dtype=dtype)
    c = torch.empty(m, n, device="cuda", dtype=dtype)
    reference = matmul_reference(a, b)
    variants = {"torch": lambda: torch.mm(a, b), "default": lambda: tilelab.matmul(a, b)}
    for (classes, unit), config in itertools.product(((1, 128), (2, 32), (8, 128)), CONFIGS[configs]):
        bm, bn, bk, stages, warps = config
        if in_kernel:
            name = f"R{classes} {bm}x{bn}x{bk} s{stages} w{warps}"
            launch = functools.partial(row_class_matmul, a, b, c, classes, unit, *config)
        else:
            name = f"R{classes} host {bm}x{bn}x{bk} s{stages} w{warps}"
            launch = row_class_host_launcher(a, b, c, classes, unit, *config)
        c.fill_(float("nan"))  # poisoned: a row or column the kernel misses shows as NaN
        try:
            launch()
        except Exception as error:  # a variant that does not compile or fit is a result too
            print(f"  {name} failed: {type(error).__name__}: {str(error)[:200]}", flush=True)
            continue
        error = relative_error(c, reference)
        if not error < 1e-2:
            print(f"  {name} WRONG: relative error {error:.1e}", flush=True)
            continue
        variants[name] = launch
    report_in_turns(f"{m}x{n}x{k} {dtype}", variants, rounds, reference=None, by_time=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--in-kernel", action="store_true",
                        help="descriptors built by every program (call PPPPP), not on the host")
    args = parser.parse_args()
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    for shape, dtype, configs in SHAPES:
        probe_shape(*shape, dtype, configs, args.in_kernel, args.rounds)


if __name__ == "__main__":
    main()
