"""tf32 on a row-major B without copying it: B's tiles reach wgmma through registers (run on the H200).

    PYTHONPATH=src:. python scripts/h200_tf32_register_probe.py [--rounds 6]

Hopper's tf32 wgmma reads a shared-memory operand only K-major, and B stored [K, N] is N-major. tilelab
copies such a B once (`_with_k_major_b`, 11% of torch's time at 4096^3). wgmma's *left* operand may come
from registers instead, in any layout the threads load it in. So this probe computes each tile of C^T =
B^T A^T: B^T's tile is read from shared memory into registers (rounded to tf32 on the way, an elementwise
step that also tells Triton to keep the operand in registers) and A^T, which is K-major as stored, stays in
shared memory. The accumulator is transposed once per tile, in the epilogue.

Each variant takes turns with torch.mm (TF32 allowed), the library's default (copy + persistent kernel) and
the library on a B that is already K-major (the kernel alone); times are tuning.measure_ms (events, cold L2).
"""

import argparse

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

import tilelab
from scripts.turns import report_in_turns
from tilelab.kernels.matmul import grouped_tile
from tilelab.ops.matmul_hopper import device_sms
from tilelab.reference import relative_error


@triton.jit
def round_to_tf32(x):
    return tl.inline_asm_elementwise("cvt.rna.tf32.f32 $0, $1;", "=r,r", [x], dtype=tl.float32,
                                     is_pure=True, pack=1)


@triton.jit
def probe_tf32_registers_kernel(a_desc, b_desc, c_desc, M, N, K,
                                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                                GROUP_M: tl.constexpr, NUM_STAGES: tl.constexpr, FLATTEN: tl.constexpr,
                                EPILOGUE_PARTS: tl.constexpr = 2):
    start = tl.program_id(0)
    programs = tl.num_programs(0)
    tiles = tl.cdiv(M, BLOCK_M) * tl.cdiv(N, BLOCK_N)
    k_steps = tl.cdiv(K, BLOCK_K)
    epilogue_tile = start - programs
    for tile in tl.range(start, tiles, programs, flatten=FLATTEN):
        pid_m, pid_n = grouped_tile(tile, M, N, BLOCK_M, BLOCK_N, GROUP_M)
        acc = tl.zeros((BLOCK_N, BLOCK_M), dtype=tl.float32)  # a tile of C^T
        for k in tl.range(0, k_steps, num_stages=NUM_STAGES):
            a = a_desc.load([pid_m * BLOCK_M, k * BLOCK_K])  # [BM, BK], K-major: A^T's tile as stored
            b = b_desc.load([k * BLOCK_K, pid_n * BLOCK_N])  # [BK, BN], N-major
            acc = tl.dot(round_to_tf32(tl.trans(b)), tl.trans(a), acc, input_precision="tf32")
        epilogue_tile += programs
        pid_m, pid_n = grouped_tile(epilogue_tile, M, N, BLOCK_M, BLOCK_N, GROUP_M)
        c = tl.trans(acc)
        if EPILOGUE_PARTS == 4:  # quarter-width stores: a smaller staging buffer leaves room for a 4th stage
            quarters = tl.permute(tl.reshape(c, (BLOCK_M, 2, 2, BLOCK_N // 4)), (0, 3, 1, 2))
            even, odd = tl.split(quarters)  # quarters 0 and 2, quarters 1 and 3
            q0, q2 = tl.split(even)
            q1, q3 = tl.split(odd)
            c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], q0)
            c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N + BLOCK_N // 4], q1)
            c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N + BLOCK_N // 2], q2)
            c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N + 3 * BLOCK_N // 4], q3)
        else:
            halves = tl.permute(tl.reshape(c, (BLOCK_M, 2, BLOCK_N // 2)), (0, 2, 1))
            left, right = tl.split(halves)
            c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], left)
            c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N + BLOCK_N // 2], right)


def register_variant(a, b, bm, bn, bk, stages, warps, flatten=False, group_m=8, parts=2):
    m, k = a.shape
    n = b.shape[1]
    c = torch.empty(m, n, device=a.device, dtype=torch.float32)
    a_desc = TensorDescriptor(a, [m, k], [a.stride(0), 1], [bm, bk])
    b_desc = TensorDescriptor(b, [k, n], [b.stride(0), 1], [bk, bn])
    c_desc = TensorDescriptor(c, [m, n], [c.stride(0), 1], [bm, bn // parts])
    grid = (min(device_sms(a.device), triton.cdiv(m, bm) * triton.cdiv(n, bn)),)

    def launch():
        probe_tf32_registers_kernel[grid](a_desc, b_desc, c_desc, m, n, k, bm, bn, bk, group_m, stages, flatten,
                                          parts, num_warps=warps)
        return c
    return launch


# BLOCK_M, BLOCK_N (the wgmma's M: 64 per warp group), BLOCK_K, stages, warps, flatten, GROUP_M, epilogue parts.
# Call OO timed 256x128x32 s3 w8 (the best, 0.877x at 4096^3), s2, flattened, 256x64 w4, 128x128 and 128x256.
CONFIGS = [
    (256, 128, 32, 3, 8, False, 8, 2), (256, 128, 32, 3, 8, False, 8, 4), (256, 128, 32, 4, 8, False, 8, 4),
    (256, 128, 32, 4, 8, False, 16, 4), (256, 128, 32, 4, 8, False, 4, 4),
]


def label(bm, bn, bk, stages, warps, flatten, group_m, parts) -> str:
    return f"registers {bm}x{bn}x{bk} s{stages} w{warps} g{group_m}{' flat' if flatten else ''} /{parts}"


def check(sizes) -> None:
    """Relative error against float64 on ragged shapes, every configuration and the library."""
    for m, n, k in sizes:
        a = torch.randn(m, k, device="cuda")
        b = torch.randn(k, n, device="cuda")
        ref = a.double() @ b.double()
        lib = tilelab.matmul(a, b)
        print(f"check {m}x{n}x{k}: library err {relative_error(lib, ref):.2e}", flush=True)
        for config in CONFIGS:
            print(f"  {label(*config)}: err {relative_error(register_variant(a, b, *config)(), ref):.2e}", flush=True)


def tf32_probe(size: int, rounds: int, kernels) -> None:
    """`kernels(a, b)` ({label: launch}) in turns at size^3 with what a tf32 kernel for a row-major B competes
    with: torch.mm (TF32), the library's copy of B + persistent kernel (its default until the registers path),
    and that kernel alone on a B already stored [N, K]."""
    a = torch.randn(size, size, device="cuda")
    b = torch.randn(size, size, device="cuda")
    b_k_major = b.t().contiguous().t()
    variants = {
        "torch.mm (TF32)": lambda: torch.mm(a, b),
        "tilelab default (copy of B + persistent)": lambda: tilelab.matmul(a, b, path="persistent"),
        "tilelab, B already K-major (no copy)": lambda: tilelab.matmul(a, b_k_major),
        **kernels(a, b),
    }
    report_in_turns(f"{size}^3 float32/tf32", variants, rounds, baseline="torch.mm (TF32)",
                    reference=(a.double() @ b.double()) if size <= 4096 else None)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=6)
    args = parser.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = True
    check([(1000, 1000, 1000), (257, 520, 36)])
    for size in (4096, 8192):
        tf32_probe(size, args.rounds, lambda a, b: {label(*c): register_variant(a, b, *c) for c in CONFIGS})


if __name__ == "__main__":
    main()
