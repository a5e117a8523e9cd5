"""Persistent matmul on tensor descriptors: one program per SM, looping over tiles.

Only `@triton.jit` code lives here; `tilelab.ops.matmul_hopper` plans and launches it.

The one-program-per-tile kernel in `kernels/matmul.py` pays a launch, a
prologue (descriptor set-up, pipeline fill) and an epilogue per tile, and its
last wave leaves SMs idle. Here the grid is at most one program per SM; each
program walks tiles start, start + programs, start + 2*programs, ... in
GROUP_M order, so its descriptors are built once and, with FLATTEN or
WARP_SPECIALIZE, the next tile's loads overlap this tile's epilogue.

Operands follow `matmul_descriptor_kernel`: a unit inner stride, A stored
[M, K] (A_K_MAJOR) or [K, M]; B stored [K, N] or [N, K] (B_K_MAJOR); C stored
[M, N] with its dtype taken from c_ptr. Reads past an edge come back as zeros
and writes past an edge are dropped, so there are no masks.

Descriptors are built once by the launcher and arrive as kernel parameters
(HOST_DESCRIPTORS): no program spends its start writing them. For a batch
they are 3-D (`load_block`), and the programs walk every matrix's tiles as
one list, matrix after matrix: a batch of 8 GEMMs of 512 tiles is 4096
tiles for 132 programs, as even a split as one GEMM of that size gets.

A warp-specialized configuration cannot take host-built descriptors (Triton
3.6 rewrites C's block, `persistent_host_descriptors`): there every program
builds its own, for the batch on grid axis 1, and walks that batch's tiles.

ROW_CLASSES > 1 (host-built descriptors): A's rows are read by class, as in
`matmul_descriptor_kernel`; A and C are described [classes, rows, cols], or
[batch, classes, rows, cols] for a batch, and each tile starts its K loop at
its class's shift (`class_shift`), so the K loops differ in length by a step.
"""

import triton
import triton.language as tl

from tilelab.kernels.matmul import (
    apply_epilogue,
    class_shift,
    class_tile,
    grouped_tile,
    load_operand_tiles,
    operand_descriptors,
    store_c_block,
)


@triton.jit
def store_tile(c_desc, matrix, row_class, acc, off_m, off_n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
               EPILOGUE_SUBTILE: tl.constexpr, ROW_CLASSES: tl.constexpr, N, bias_ptr, ACTIVATION: tl.constexpr):
    """Store a float32 accumulator tile through `c_desc` (into matrix `matrix` of a batch's descriptor, and
    class `row_class` of it with ROW_CLASSES > 1: `store_c_block`), converted to the descriptor's dtype.

    Subtiled: [BM, BN] -> [BM, 2, BN/2] -> [BM, BN/2, 2] -> two [BM, BN/2] halves, stored one after the
    other, so each half is converted and staged alone: fewer live registers and half the shared-memory
    staging buffer (`c_desc` then has a [BM, BN/2] block).

    bias_ptr, ACTIVATION (`tilelab.linear`; None and "" for none): `apply_epilogue` on each half as it is stored,
    so its temporaries live for half a tile at a time (an exact GELU on a whole 128x256 tile spilled registers:
    `kernel-inspect --path persistent --activation gelu`).
    """
    out_dtype = c_desc.dtype
    if EPILOGUE_SUBTILE:
        halves = tl.permute(tl.reshape(acc, (BLOCK_M, 2, BLOCK_N // 2)), (0, 2, 1))
        left, right = tl.split(halves)
        if bias_ptr is not None or ACTIVATION != "":
            left = apply_epilogue(left, bias_ptr, off_n, N, BLOCK_N // 2, ACTIVATION)
        store_c_block(c_desc, matrix, row_class, off_m, off_n, left.to(out_dtype), ROW_CLASSES)
        if bias_ptr is not None or ACTIVATION != "":
            right = apply_epilogue(right, bias_ptr, off_n + BLOCK_N // 2, N, BLOCK_N // 2, ACTIVATION)
        store_c_block(c_desc, matrix, row_class, off_m, off_n + BLOCK_N // 2, right.to(out_dtype), ROW_CLASSES)
    else:
        if bias_ptr is not None or ACTIVATION != "":
            acc = apply_epilogue(acc, bias_ptr, off_n, N, BLOCK_N, ACTIVATION)
        store_c_block(c_desc, matrix, row_class, off_m, off_n, acc.to(out_dtype), ROW_CLASSES)


@triton.jit
def matrices_described(desc, ROW_CLASSES: tl.constexpr):
    """How many matrices a host-built C descriptor covers: a batch's first dimension (3-D, or 4-D when
    described by class), else 1."""
    if len(desc.block_shape) == 3 + (ROW_CLASSES > 1):
        return desc.shape[0]
    else:
        return 1


@triton.jit
def matrix_and_tile(tile, tiles_per_matrix, c_desc, ROW_CLASSES: tl.constexpr):
    """(matrix, tile within it) of an index into a batch's list of tiles, matrix after matrix. One GEMM (C's
    descriptor without a batch dimension: 2-D, or 3-D by class) keeps the index as it is: its kernel is the
    same instruction for instruction as before batches shared the loop."""
    if len(c_desc.block_shape) == 3 + (ROW_CLASSES > 1):
        return tile // tiles_per_matrix, tile % tiles_per_matrix
    else:
        return 0, tile


@triton.jit
def tile_origin(tile, tiles_per_matrix, c_desc, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                GROUP_M: tl.constexpr, ROW_CLASSES: tl.constexpr):
    """(matrix, row class, off_m, off_n) of an index into a batch's list of tiles (`matrix_and_tile`), each
    matrix's tiles in GROUP_M order (`grouped_tile`; by class with ROW_CLASSES > 1: `class_tile`, else
    class 0)."""
    matrix, within = matrix_and_tile(tile, tiles_per_matrix, c_desc, ROW_CLASSES)
    if ROW_CLASSES > 1:
        row_class, pid_m, pid_n = class_tile(within, M, N, BLOCK_M, BLOCK_N, GROUP_M, ROW_CLASSES)
    else:
        row_class = 0
        pid_m, pid_n = grouped_tile(within, M, N, BLOCK_M, BLOCK_N, GROUP_M)
    return matrix, row_class, pid_m * BLOCK_M, pid_n * BLOCK_N


@triton.jit
def matmul_persistent_kernel(
    a_ptr, b_ptr, c_ptr,
    M, N, K,
    stride_ab, stride_a_row,
    stride_bb, stride_b_row,
    stride_cb, stride_c_row,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr,
    INPUT_PRECISION: tl.constexpr,
    A_K_MAJOR: tl.constexpr,
    B_K_MAJOR: tl.constexpr,
    NUM_STAGES: tl.constexpr,
    EPILOGUE_SUBTILE: tl.constexpr,
    WARP_SPECIALIZE: tl.constexpr,
    FLATTEN: tl.constexpr,
    HOST_DESCRIPTORS: tl.constexpr = False,
    ROW_CLASSES: tl.constexpr = 1,
    bias_ptr=None,
    ACTIVATION: tl.constexpr = "",
):
    """See the module's docstring. bias_ptr, ACTIVATION: `apply_epilogue` in `store_tile` (`tilelab.linear`);
    left at their defaults, nothing."""
    start = tl.program_id(0)
    programs = tl.num_programs(0)
    if HOST_DESCRIPTORS:
        # Built by the launcher (C's block is [BLOCK_M, BLOCK_N // 2] when subtiled); C's says how many matrices.
        # With ROW_CLASSES > 1, A and C are described by class (`matmul_descriptor_kernel`).
        a_desc, b_desc, c_desc = a_ptr, b_ptr, c_ptr
        matrices = matrices_described(c_desc, ROW_CLASSES)
    else:
        matrices = 1  # this program's batch only, grid axis 1
        batch = tl.program_id(1).to(tl.int64)
        c_base = c_ptr + batch * stride_cb
        # Built once per program, reused for every tile it visits.
        a_desc, b_desc = operand_descriptors(a_ptr + batch * stride_ab, b_ptr + batch * stride_bb, M, N, K,
                                             stride_a_row, stride_b_row, BLOCK_M, BLOCK_N, BLOCK_K,
                                             A_K_MAJOR, B_K_MAJOR)
        # A subtiled epilogue stores half-width tiles: half the staging buffer in shared memory.
        if EPILOGUE_SUBTILE:
            c_desc = tl.make_tensor_descriptor(c_base, [M, N], [stride_c_row, 1], [BLOCK_M, BLOCK_N // 2])
        else:
            c_desc = tl.make_tensor_descriptor(c_base, [M, N], [stride_c_row, 1], [BLOCK_M, BLOCK_N])

    if ROW_CLASSES > 1:
        tiles_per_matrix = ROW_CLASSES * tl.cdiv(M // ROW_CLASSES, BLOCK_M) * tl.cdiv(N, BLOCK_N)
    else:
        tiles_per_matrix = tl.cdiv(M, BLOCK_M) * tl.cdiv(N, BLOCK_N)
    tiles = tiles_per_matrix * matrices
    # The epilogue recomputes its tile from its own counter rather than carrying
    # (pid_m, pid_n) out of the loop body: with FLATTEN the compiler fuses the
    # tile loop and the K loop into one, and the store runs on the last K step.
    epilogue_tile = start - programs
    for tile in tl.range(start, tiles, programs, flatten=FLATTEN, warp_specialize=WARP_SPECIALIZE):
        matrix, row_class, off_m, off_n = tile_origin(tile, tiles_per_matrix, c_desc, M, N, BLOCK_M, BLOCK_N,
                                                      GROUP_M, ROW_CLASSES)
        shift = 0
        if ROW_CLASSES > 1:
            shift = class_shift(row_class, stride_a_row, a_desc, ROW_CLASSES)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in tl.range(0, tl.cdiv(K + shift, BLOCK_K), num_stages=NUM_STAGES):
            a, b = load_operand_tiles(a_desc, b_desc, matrix, row_class, off_m, off_n, k * BLOCK_K - shift,
                                      A_K_MAJOR, B_K_MAJOR, ROW_CLASSES)
            acc = tl.dot(a, b, acc, input_precision=INPUT_PRECISION)

        epilogue_tile += programs
        matrix, row_class, off_m, off_n = tile_origin(epilogue_tile, tiles_per_matrix, c_desc, M, N, BLOCK_M,
                                                      BLOCK_N, GROUP_M, ROW_CLASSES)
        store_tile(c_desc, matrix, row_class, acc, off_m, off_n, BLOCK_M, BLOCK_N, EPILOGUE_SUBTILE, ROW_CLASSES,
                   N, bias_ptr, ACTIVATION)
