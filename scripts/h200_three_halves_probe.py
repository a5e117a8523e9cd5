"""Tiles 1.5 times as wide as a power of two, for shapes between powers of two (run on the H200)

    PYTHONPATH=src:. python scripts/h200_three_halves_probe.py [--rounds 10] [--check]

1536^3 runs at 0.72-0.74x torch: 128x256 tiles make 72 programs for 132 SMs, 128x128 tiles make 144 (a second
wave of 12), 64x128 tiles 288 (results/h200-mid-shapes-probe.log). Triton's blocks are powers of two, so there
is no 128x192 tile; this probe builds one from two: each program keeps a 128x128 and a 128x64 accumulator that
share A's tile, so 1536^3 makes 96 programs and 3072^3 384 (2.9 waves). The library's
`matmul_wide_kernel` grew from `three_halves_kernel` once it measured faster; the probe keeps its own kernels,
so that its recorded runs can be repeated. `--check` runs them on small shapes and exits (on a CPU:
TRITON_INTERPRET=1).
"""

import sys

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

from tilelab.kernels.matmul import grouped_tile


@triton.jit
def three_halves_kernel(a_desc, b_desc, b_extra_desc, c_desc, c_extra_desc, M, N, K,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_N_EXTRA: tl.constexpr,
                        BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    """One BLOCK_M x (BLOCK_N + BLOCK_N_EXTRA) tile of C = A @ B per program: two dots share A's block."""
    width: tl.constexpr = BLOCK_N + BLOCK_N_EXTRA
    pid_m, pid_n = grouped_tile(tl.program_id(0), M, N, BLOCK_M, width, GROUP_M)
    off_m = pid_m * BLOCK_M
    off_n = pid_n * width
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    acc_extra = tl.zeros((BLOCK_M, BLOCK_N_EXTRA), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([off_m, k * BLOCK_K])
        acc = tl.dot(a, b_desc.load([k * BLOCK_K, off_n]), acc)
        acc_extra = tl.dot(a, b_extra_desc.load([k * BLOCK_K, off_n + BLOCK_N]), acc_extra)
    c_desc.store([off_m, off_n], acc.to(c_desc.dtype))
    c_extra_desc.store([off_m, off_n + BLOCK_N], acc_extra.to(c_extra_desc.dtype))


@triton.jit
def three_thirds_kernel(a_desc, b_desc, c_desc, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                        BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    """The same tile from three dots of BLOCK_N // 3 columns: one B and one C descriptor (of that width)."""
    part: tl.constexpr = BLOCK_N // 3
    pid_m, pid_n = grouped_tile(tl.program_id(0), M, N, BLOCK_M, BLOCK_N, GROUP_M)
    off_m = pid_m * BLOCK_M
    off_n = pid_n * BLOCK_N
    acc0 = tl.zeros((BLOCK_M, part), dtype=tl.float32)
    acc1 = tl.zeros((BLOCK_M, part), dtype=tl.float32)
    acc2 = tl.zeros((BLOCK_M, part), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([off_m, k * BLOCK_K])
        acc0 = tl.dot(a, b_desc.load([k * BLOCK_K, off_n]), acc0)
        acc1 = tl.dot(a, b_desc.load([k * BLOCK_K, off_n + part]), acc1)
        acc2 = tl.dot(a, b_desc.load([k * BLOCK_K, off_n + 2 * part]), acc2)
    c_desc.store([off_m, off_n], acc0.to(c_desc.dtype))
    c_desc.store([off_m, off_n + part], acc1.to(c_desc.dtype))
    c_desc.store([off_m, off_n + 2 * part], acc2.to(c_desc.dtype))


@triton.jit
def tall_three_halves_kernel(a_desc, a_extra_desc, b_desc, c_desc, c_extra_desc, M, N, K,
                             BLOCK_M: tl.constexpr, BLOCK_M_EXTRA: tl.constexpr, BLOCK_N: tl.constexpr,
                             BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    """A (BLOCK_M + BLOCK_M_EXTRA) x BLOCK_N tile: two dots share B's block."""
    height: tl.constexpr = BLOCK_M + BLOCK_M_EXTRA
    pid_m, pid_n = grouped_tile(tl.program_id(0), M, N, height, BLOCK_N, GROUP_M)
    off_m = pid_m * height
    off_n = pid_n * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    acc_extra = tl.zeros((BLOCK_M_EXTRA, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        b = b_desc.load([k * BLOCK_K, off_n])
        acc = tl.dot(a_desc.load([off_m, k * BLOCK_K]), b, acc)
        acc_extra = tl.dot(a_extra_desc.load([off_m + BLOCK_M, k * BLOCK_K]), b, acc_extra)
    c_desc.store([off_m, off_n], acc.to(c_desc.dtype))
    c_extra_desc.store([off_m + BLOCK_M, off_n], acc_extra.to(c_extra_desc.dtype))


def bound(kernel, c, args, num_warps, num_stages):
    """A launch of `kernel` (already given its grid) with `args`, returning C."""
    def launch():
        kernel(*args, num_warps=num_warps, num_stages=num_stages)
        return c
    return launch


def three_thirds_launch(a, b, block_m=128, block_n=192, block_k=64, group_m=8, num_warps=4, num_stages=4):
    """A launch of `three_thirds_kernel`: tiles of block_m x block_n, three dots of block_n // 3 columns."""
    m, k = a.shape
    n = b.shape[1]
    c = torch.empty(m, n, device=a.device, dtype=a.dtype)
    descriptors = (TensorDescriptor.from_tensor(a, [block_m, block_k]),
                   TensorDescriptor.from_tensor(b, [block_k, block_n // 3]),
                   TensorDescriptor.from_tensor(c, [block_m, block_n // 3]))
    grid = (triton.cdiv(m, block_m) * triton.cdiv(n, block_n),)
    return bound(three_thirds_kernel[grid], c, (*descriptors, m, n, k, block_m, block_n, block_k, group_m),
                 num_warps, num_stages)


def tall_launch(a, b, block_m=128, block_n=128, block_k=64, group_m=8, num_warps=4, num_stages=4):
    """A launch of `tall_three_halves_kernel`: tiles of 1.5 block_m x block_n."""
    m, k = a.shape
    n = b.shape[1]
    extra = block_m // 2
    c = torch.empty(m, n, device=a.device, dtype=a.dtype)
    descriptors = (TensorDescriptor.from_tensor(a, [block_m, block_k]),
                   TensorDescriptor.from_tensor(a, [extra, block_k]),
                   TensorDescriptor.from_tensor(b, [block_k, block_n]),
                   TensorDescriptor.from_tensor(c, [block_m, block_n]),
                   TensorDescriptor.from_tensor(c, [extra, block_n]))
    grid = (triton.cdiv(m, block_m + extra) * triton.cdiv(n, block_n),)
    return bound(tall_three_halves_kernel[grid], c,
                 (*descriptors, m, n, k, block_m, extra, block_n, block_k, group_m), num_warps, num_stages)


def three_halves_launch(a, b, block_m=128, block_n=128, block_k=64, group_m=8, num_warps=8, num_stages=4):
    """A launch of `three_halves_kernel` on A [M, K] and B [K, N] (row-major), tiles of block_m x 1.5 block_n."""
    m, k = a.shape
    n = b.shape[1]
    extra = block_n // 2
    c = torch.empty(m, n, device=a.device, dtype=a.dtype)
    descriptors = (TensorDescriptor.from_tensor(a, [block_m, block_k]),
                   TensorDescriptor.from_tensor(b, [block_k, block_n]),
                   TensorDescriptor.from_tensor(b, [block_k, extra]),
                   TensorDescriptor.from_tensor(c, [block_m, block_n]),
                   TensorDescriptor.from_tensor(c, [block_m, extra]))
    grid = (triton.cdiv(m, block_m) * triton.cdiv(n, block_n + extra),)
    return bound(three_halves_kernel[grid], c, (*descriptors, m, n, k, block_m, block_n, extra, block_k, group_m),
                 num_warps, num_stages)


SHAPES = [(1536, 1536, 1536), (1536, 1536, 4096), (3072, 3072, 3072), (768, 3072, 4096), (768, 4096, 4096),
          (3072, 4096, 4096)]
# name: (launch, block_m, block_n, block_k, num_warps, num_stages). The call OOOOOO's tiles (all of them 1.5
# times as wide as block_n) measured 128x192 with 4 warps in 4 stages best at every shape but 768^3, 8 warps
# 5-10% behind, and 64-row or 96-column tiles further (results/h200-three-halves-probe.log); the rest follow.
TILES = {
    "128x192x64 w4 s4": (three_halves_launch, 128, 128, 64, 4, 4),
    "128x192x64 w4 s5": (three_halves_launch, 128, 128, 64, 4, 5),
    "128x192x64 w4 s3": (three_halves_launch, 128, 128, 64, 4, 3),
    "128x192x128 w4 s2": (three_halves_launch, 128, 128, 128, 4, 2),
    "128x192x64 w8 s4": (three_halves_launch, 128, 128, 64, 8, 4),
    "thirds 128x192x64 w4 s4": (three_thirds_launch, 128, 192, 64, 4, 4),
    "thirds 128x192x64 w4 s5": (three_thirds_launch, 128, 192, 64, 4, 5),
    "tall 192x128x64 w4 s4": (tall_launch, 128, 128, 64, 4, 4),
    "tall 192x128x64 w8 s4": (tall_launch, 128, 128, 64, 8, 4),
    "tall 192x256x64 w8 s3": (tall_launch, 128, 256, 64, 8, 3),
}


def check() -> None:
    """Small ragged shapes against a float64 product, once per tile shape (the interpreter runs these)."""
    device = "cuda" if torch.cuda.is_available() else "cpu"
    for m, n, k in [(65, 200, 72), (200, 192, 64), (7, 96, 16)]:
        a = torch.randn(m, k, device=device, dtype=torch.float16)
        b = torch.randn(k, n, device=device, dtype=torch.float16)
        want = a.double() @ b.double()
        for name, (launch, bm, bn, bk, warps, stages) in TILES.items():
            got = launch(a, b, bm, bn, bk, 8, warps, stages)()
            err = ((got.double() - want).norm() / want.norm()).item()
            print(f"{m}x{n}x{k} {name}: rel err {err:.1e}", flush=True)
            assert err < 1e-2, name


def main() -> None:
    from scripts.turns import operands_with_torch, record_default, report_in_turns, rounds_argument
    from tilelab.reference import matmul_reference

    rounds = rounds_argument()
    for m, n, k in SHAPES:
        a, b, variants = operands_with_torch(m, n, k)
        record_default(variants, a, b)
        for name, (launch, bm, bn, bk, warps, stages) in TILES.items():
            variants[name] = launch(a, b, bm, bn, bk, 8, warps, stages)
        report_in_turns(f"{m}x{n}x{k} float16", variants, rounds, reference=matmul_reference(a, b), by_time=True)


if __name__ == "__main__":
    if "--check" in sys.argv:
        check()
    else:
        main()
