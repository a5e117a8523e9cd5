"""Stream-K matmul: every program walks an equal run of (tile, K step) pairs, so no SM waits out a last wave.

Only `@triton.jit` code lives here; `tilelab.ops.matmul_hopper.launch_stream_k` launches it (one GEMM,
descriptors built on the host).

1536^3 in 128x256 tiles makes 72 tiles for the H200's 132 SMs: one program per tile leaves 60 SMs idle,
and smaller tiles read A and B more often. Here the tiles' K steps are laid end to end (all of tile 0's,
then tile 1's, ...) and cut into one run per program, of equal length give or take one step: 72 x 24 steps
make runs of 13 or 14. A run covers the end of one tile, perhaps some whole tiles, and the start of another.

A tile a run covers whole is stored as usual. A tile cut between runs is shared: each program holding part
of it writes its float32 partial tile to its own slot of the workspace, [programs, 2, BLOCK_M, BLOCK_N]
(slot 0 for the tile its run starts in, slot 1 for the tile it ends in), and counts itself in the tile's
counter. The program that arrives last adds the partials up in program order (the same bits whoever is
last), stores C, and sets the counter back to 0 for the next launch.
"""

import triton
import triton.language as tl

from tilelab.kernels.matmul import grouped_tile, load_operand_tiles, store_block


@triton.jit
def run_of(program, units, programs):
    """[start, stop) of `program`'s run: `units` steps shared out evenly, the first `units % programs` runs
    one step longer. The launcher keeps programs <= units, so no run is empty."""
    per = units // programs
    extra = units % programs
    start = program * per + tl.minimum(program, extra)
    return start, start + per + (program < extra).to(tl.int32)


@triton.jit
def owner_of(unit, units, programs):
    """The program whose run holds step `unit` (the inverse of `run_of`)."""
    per = units // programs
    extra = units % programs
    long_steps = extra * (per + 1)
    return tl.where(unit < long_steps, unit // (per + 1), extra + (unit - long_steps) // per)


@triton.jit
def partial_slot(ws_ptr, program, tile_start, units, programs, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """Where `program` keeps its partial of the tile whose first step is `tile_start`: slot 0 if its run
    starts inside that tile, slot 1 if the run began in an earlier tile (this is then the tile it ends in)."""
    run_start, _ = run_of(program, units, programs)
    slot = (run_start < tile_start).to(tl.int64)
    offsets = tl.arange(0, BLOCK_M)[:, None] * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]
    return ws_ptr + (program * 2 + slot) * (BLOCK_M * BLOCK_N) + offsets  # int64, since slot is


@triton.jit
def finish_shared_tile(acc, tile, program, ws_ptr, counters_ptr, c_desc, off_m, off_n, k_steps, units, programs,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """Hand in this program's partial of a shared tile; the last of the tile's programs stores C."""
    tile_start = tile * k_steps
    first = owner_of(tile_start, units, programs)
    last = owner_of(tile_start + k_steps - 1, units, programs)
    tl.store(partial_slot(ws_ptr, program, tile_start, units, programs, BLOCK_M, BLOCK_N), acc)
    # Every thread's partial is written before the count goes up (release); the last arrival sees them all
    # (acquire).
    tl.debug_barrier()
    arrived = tl.atomic_add(counters_ptr + tile, 1, sem="acq_rel", scope="gpu")
    if arrived == last - first:
        total = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for holder in range(first, last + 1):  # program order: the same sum whoever arrives last
            # .cg: read from L2, never from a stale L1 line
            total += tl.load(partial_slot(ws_ptr, holder, tile_start, units, programs, BLOCK_M, BLOCK_N),
                             cache_modifier=".cg")
        store_block(c_desc, 0, off_m, off_n, total.to(c_desc.dtype))
        tl.atomic_xchg(counters_ptr + tile, 0, sem="relaxed", scope="gpu")  # ready for the next launch


@triton.jit
def matmul_stream_k_kernel(
    a_desc, b_desc, c_desc,  # host-built: A and B as stored, C [M, N] in [BLOCK_M, BLOCK_N] blocks
    ws_ptr, counters_ptr,  # float32 [programs, 2, BLOCK_M, BLOCK_N]; int32 per tile, zero between launches
    M, N, K,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr,
    NUM_STAGES: tl.constexpr,
    INPUT_PRECISION: tl.constexpr,
    A_K_MAJOR: tl.constexpr,
    B_K_MAJOR: tl.constexpr,
):
    program = tl.program_id(0)
    programs = tl.num_programs(0)
    k_steps = tl.cdiv(K, BLOCK_K)
    units = tl.cdiv(M, BLOCK_M) * tl.cdiv(N, BLOCK_N) * k_steps
    unit, stop = run_of(program, units, programs)
    while unit < stop:
        tile = unit // k_steps  # tiles in GROUP_M order, as one program per tile would take them
        first_k = unit - tile * k_steps
        stop_k = tl.minimum(k_steps, first_k + stop - unit)
        pid_m, pid_n = grouped_tile(tile, M, N, BLOCK_M, BLOCK_N, GROUP_M)
        off_m = pid_m * BLOCK_M
        off_n = pid_n * BLOCK_N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in tl.range(first_k, stop_k, num_stages=NUM_STAGES):
            a, b = load_operand_tiles(a_desc, b_desc, 0, 0, off_m, off_n, k * BLOCK_K, A_K_MAJOR, B_K_MAJOR, 1)
            acc = tl.dot(a, b, acc, input_precision=INPUT_PRECISION)
        if (first_k == 0) & (stop_k == k_steps):
            store_block(c_desc, 0, off_m, off_n, acc.to(c_desc.dtype))
        else:
            finish_shared_tile(acc, tile, program, ws_ptr, counters_ptr, c_desc, off_m, off_n, k_steps, units,
                               programs, BLOCK_M, BLOCK_N)
        unit += stop_k - first_k
