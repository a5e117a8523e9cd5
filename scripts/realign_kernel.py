"""A matmul that first copies A and B onto 128-byte lines, in the same launch (a probe's kernel).

Rows that start off 32-byte sectors (1000 fp16 elements, 2000 bytes) read through TMA at about 5.5 TB/s from
L2 against 8-9.7 TB/s on lines (results/h200-row-alignment-read-probe.log), and a matmul reads every row of A
once per column of tiles and every row of B once per row of tiles. Here every program first copies a share of
A's and B's rows into scratch whose rows start on lines (each byte read once, off sectors), all programs meet
at a grid-wide barrier, and then the tiles are computed from the scratch through host-built descriptors.

COPY and MULTIPLY select the phases: both on the GPU (one launch, all programs resident: a cooperative
launch), one at a time for a two-launch comparison and for Triton's interpreter, which runs programs one
after another and would wait forever at the barrier.
"""

import triton
import triton.language as tl

from tilelab.kernels.matmul import grouped_tile, known_multiple, load_operand_tiles, store_block


@triton.jit
def copy_rows(src, dst, ROWS, COLS, src_stride, dst_stride, first, step, BLOCK_R: tl.constexpr,
              BLOCK_C: tl.constexpr):
    """Copy a [ROWS, COLS] matrix between row strides, chunk by chunk; this program takes chunks first,
    first + step, ... Strides and COLS are multiples of 8 elements (16-byte rows), loads 16 bytes wide."""
    src_stride = known_multiple(src_stride, 8)
    dst_stride = known_multiple(dst_stride, 8)
    COLS = known_multiple(COLS, 8)
    chunks_c = tl.cdiv(COLS, BLOCK_C)
    for chunk in range(first, tl.cdiv(ROWS, BLOCK_R) * chunks_c, step):
        rows = (chunk // chunks_c) * BLOCK_R + tl.arange(0, BLOCK_R)
        cols = (chunk % chunks_c) * BLOCK_C + tl.arange(0, BLOCK_C)
        inside = (rows[:, None] < ROWS) & (cols[None, :] < COLS)
        wide = rows[:, None].to(tl.int64)
        values = tl.load(src + wide * src_stride + cols[None, :], mask=inside)
        tl.store(dst + wide * dst_stride + cols[None, :], values, mask=inside)


@triton.jit
def fence_proxy_async():
    """Order this thread's ordinary global writes before later TMA (async proxy) reads, and back."""
    tl.inline_asm_elementwise("fence.proxy.async.global; mov.u32 $0, 0;", "=r", [], dtype=tl.int32,
                              is_pure=False, pack=1)


@triton.jit
def grid_barrier(sync_ptr, programs):
    """Wait until every program of the launch arrives. sync_ptr[0] counts arrivals and is back to 0 when
    the launch ends; sync_ptr[1] is a generation the last program to arrive moves on."""
    fence_proxy_async()
    tl.debug_barrier()  # every thread's copies before this program's arrival
    generation = tl.atomic_add(sync_ptr + 1, 0, sem="acquire", scope="gpu")
    arrived = tl.atomic_add(sync_ptr, 1, sem="acq_rel", scope="gpu")
    if arrived == programs - 1:
        tl.atomic_xchg(sync_ptr, 0, sem="relaxed", scope="gpu")
        tl.atomic_add(sync_ptr + 1, 1, sem="release", scope="gpu")
    else:
        while tl.atomic_add(sync_ptr + 1, 0, sem="acquire", scope="gpu") == generation:
            pass
    tl.debug_barrier()
    fence_proxy_async()


@triton.jit
def realigned_matmul_kernel(
    a_ptr, b_ptr, a_lines, b_lines, a_desc, b_desc, c_desc, sync_ptr,
    A_ROWS, A_COLS, stride_a_row, a_lines_stride,
    B_ROWS, B_COLS, stride_b_row, b_lines_stride,
    M, N, K, BATCH,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
    COPY: tl.constexpr, MULTIPLY: tl.constexpr, COPY_R: tl.constexpr, COPY_C: tl.constexpr,
):
    """A_ROWS x A_COLS: A's rows of every matrix, one after another (batch * M rows of K); B's likewise.
    a_desc, b_desc describe the scratch (a_lines, b_lines); c_desc the output."""
    pid = tl.program_id(0)
    programs = tl.num_programs(0)
    if COPY:
        copy_rows(a_ptr, a_lines, A_ROWS, A_COLS, stride_a_row, a_lines_stride, pid, programs, COPY_R, COPY_C)
        copy_rows(b_ptr, b_lines, B_ROWS, B_COLS, stride_b_row, b_lines_stride, pid, programs, COPY_R, COPY_C)
    if COPY and MULTIPLY:
        grid_barrier(sync_ptr, programs)
    if MULTIPLY:
        tiles = tl.cdiv(M, BLOCK_M) * tl.cdiv(N, BLOCK_N)
        for tile in range(pid, tiles * BATCH, programs):
            batch = tile // tiles
            pid_m, pid_n = grouped_tile(tile % tiles, M, N, BLOCK_M, BLOCK_N, GROUP_M)
            off_m = pid_m * BLOCK_M
            off_n = pid_n * BLOCK_N
            acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
            for k in range(0, tl.cdiv(K, BLOCK_K)):
                a, b = load_operand_tiles(a_desc, b_desc, batch, off_m, off_n, k * BLOCK_K, True, False)
                acc = tl.dot(a, b, acc)
            store_block(c_desc, batch, off_m, off_n, acc.to(c_desc.dtype))


def realigned_matmul(a, b, block=(64, 128, 128), *, stages=4, warps=4, group_m=8, phases="fused", sync=None,
                     programs=None):
    """C = A @ B through `realigned_matmul_kernel`, for contiguous fp16/bf16 A [(batch,) M, K] and B
    [(batch,) K, N]. phases: "fused" (one cooperative launch), "two" (copy, then multiply: two launches)."""
    import torch
    from triton.tools.tensor_descriptor import TensorDescriptor

    block_m, block_n, block_k = block
    a3, b3 = (a if a.dim() == 3 else a[None]), (b if b.dim() == 3 else b[None])
    batch, m, k = a3.shape
    n = b3.shape[2]
    k_lines, n_lines = triton.cdiv(k, 64) * 64, triton.cdiv(n, 64) * 64
    a_lines = a.new_empty(batch, m, k_lines)
    b_lines = b.new_empty(batch, k, n_lines)
    c_lines = a.new_empty(batch, m, n_lines)

    def describe(t, rows, cols, box):
        if batch == 1:
            return TensorDescriptor(t[0], [rows, cols], [t.stride(1), 1], list(box))
        return TensorDescriptor(t, [batch, rows, cols], [t.stride(0), t.stride(1), 1], [1, *box])

    a_desc = describe(a_lines, m, k, (block_m, block_k))
    b_desc = describe(b_lines, k, n, (block_k, block_n))
    c_desc = describe(c_lines, m, n, (block_m, block_n))
    tiles = triton.cdiv(m, block_m) * triton.cdiv(n, block_n) * batch
    if programs is None:
        programs = min(tiles, torch.cuda.get_device_properties(a.device).multi_processor_count
                       if a.is_cuda else tiles)
    if sync is None:
        sync = torch.zeros(2, dtype=torch.int32, device=a.device)
    common = (a3, b3, a_lines, b_lines, a_desc, b_desc, c_desc, sync, batch * m, k, a3.stride(1), k_lines,
              batch * k, n, b3.stride(1), n_lines, m, n, k, batch, block_m, block_n, block_k, group_m)
    launch = dict(num_warps=warps, num_stages=stages)
    if phases == "fused":
        realigned_matmul_kernel[(programs,)](*common, True, True, 16, 128, launch_cooperative_grid=True, **launch)
    else:
        realigned_matmul_kernel[(programs,)](*common, True, False, 16, 128, **launch)
        realigned_matmul_kernel[(programs,)](*common, False, True, 16, 128, **launch)
    c = c_lines[..., :n]
    return c if a.dim() == 3 else c[0]
