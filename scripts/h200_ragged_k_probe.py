"""Does a ragged K cost the pointer kernel? (run on the H200)

    PYTHONPATH=src:. python scripts/h200_ragged_k_probe.py

The library's pointer kernel masks K in every step. `peeled_kernel` below (a probe, not library code) runs
the whole BLOCK_K steps with only the loop-invariant M and N masks, then one masked step for K's remainder.
Both are timed with tuning.measure_ms on shapes that are ragged in M/N only, in K only, or both, next to
torch.mm.
"""

import torch
import triton
import triton.language as tl

from tilelab import tuning
from tilelab.kernels.matmul import grouped_tile, known_multiple
from tilelab.ops import matmul as matmul_op
from tilelab.ops import matmul_plan


@triton.jit
def peeled_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                  ALIGN: tl.constexpr):
    if ALIGN > 1:
        N = known_multiple(N, ALIGN)
        K = known_multiple(K, ALIGN)
        stride_am = known_multiple(stride_am, ALIGN)
        stride_bk = known_multiple(stride_bk, ALIGN)
        stride_cm = known_multiple(stride_cm, ALIGN)
    pid_m, pid_n = grouped_tile(tl.program_id(0), M, N, BLOCK_M, BLOCK_N, GROUP_M)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    a_tile = a_ptr + rows[:, None] * stride_am + ks[None, :]
    b_tile = b_ptr + ks[:, None] * stride_bk + cols[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    whole = K // BLOCK_K * BLOCK_K
    for _ in range(0, whole, BLOCK_K):
        a = tl.load(a_tile, mask=rows[:, None] < M, other=0.0)
        b = tl.load(b_tile, mask=cols[None, :] < N, other=0.0)
        acc = tl.dot(a, b, acc)
        a_tile += BLOCK_K
        b_tile += BLOCK_K * stride_bk
    if whole < K:
        k_ok = (whole + ks) < K
        a = tl.load(a_tile, mask=(rows[:, None] < M) & k_ok[None, :], other=0.0)
        b = tl.load(b_tile, mask=k_ok[:, None] & (cols[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :], acc.to(c_ptr.dtype.element_ty),
             mask=(rows[:, None] < M) & (cols[None, :] < N))


def time_shape(m: int, n: int, k: int, configs) -> str:
    a = torch.randn(m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(k, n, device="cuda", dtype=torch.float16)
    ref = a.double() @ b.double()
    line = f"{m}x{n}x{k}: torch {tuning.measure_ms(lambda: torch.mm(a, b)) * 1e3:6.1f} us"
    align = matmul_plan.pointer_align(a[None], b[None], n, k)
    for cfg in configs:
        c = torch.empty(m, n, device="cuda", dtype=torch.float16)
        grid = (triton.cdiv(m, cfg.block_m) * triton.cdiv(n, cfg.block_n),)

        def peeled(cfg=cfg, c=c, grid=grid):
            peeled_kernel[grid](a, b, c, m, n, k, a.stride(0), b.stride(0), c.stride(0), cfg.block_m, cfg.block_n,
                                cfg.block_k, cfg.group_m, align, num_warps=cfg.num_warps, num_stages=cfg.num_stages)

        t_peeled = tuning.measure_ms(peeled)
        err = ((c.double() - ref).norm() / ref.norm()).item()
        t_lib = tuning.measure_ms(lambda cfg=cfg: matmul_op.matmul(a, b, path="pointer", config=cfg))
        line += f" | {cfg.label()}: library {t_lib * 1e3:6.1f} peeled {t_peeled * 1e3:6.1f} us (err {err:.1e})"
    return line


def main() -> None:
    configs = [tuning.Config(128, 128, 64, 8, num_warps=8, num_stages=4),
               tuning.Config(64, 128, 64, 8, num_warps=4, num_stages=4)]
    for shape in [(1000, 1000, 1000), (1024, 1024, 1024), (1000, 1000, 1024), (1024, 1024, 1000),
                  (2000, 2000, 2000), (4000, 4000, 4000)]:
        print(time_shape(*shape, configs), flush=True)

if __name__ == "__main__":
    main()
