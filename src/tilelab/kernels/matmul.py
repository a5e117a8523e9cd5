"""Triton kernels for C = A @ B, read top to bottom.

Only `@triton.jit` code lives here. Choosing a path, a tile configuration and
checking inputs happen in `tilelab.ops.matmul`; these kernels trust their
arguments.

Every kernel computes one BLOCK_M x BLOCK_N tile of C per tile index, walking
the reduction dimension K in BLOCK_K steps into a float32 accumulator that
lives in registers for the whole loop and is written to memory exactly once.

Batches: grid axis 1 is the batch index; each operand carries a batch stride
(0 when that operand is broadcast over the batch). Descriptors built on the
host describe a batch once, in three dimensions (`load_block`, `store_block`).
"""

import triton
import triton.language as tl

from tilelab import env

# The epilogue's reciprocal and exponential from the special-function unit, as one instruction each, when the
# kernels are compiled for a GPU; Triton's interpreter runs no inline assembly, and takes `1.0 / x` and `exp2`.
SFU: tl.constexpr = tl.constexpr(not env.interpreting())


@triton.jit
def grouped_tile(tile_id, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, GROUP_M: tl.constexpr):
    """Map a linear tile index to (pid_m, pid_n), GROUP_M tile rows at a time.

    With GROUP_M=1 this is plain row-major order: a program walks along a row
    of tiles, re-reading all of B for every row. With GROUP_M=8 consecutive
    programs sweep down 8 tile rows before moving right, so the A rows and B
    columns they share are still in L2 when the neighbours ask for them.
    """
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    tiles_per_group = GROUP_M * tiles_n
    group = tile_id // tiles_per_group
    first_m = group * GROUP_M
    # The last group may have fewer than GROUP_M tile rows.
    group_rows = tl.minimum(tiles_m - first_m, GROUP_M)
    pid_m = first_m + (tile_id % tiles_per_group) % group_rows
    pid_n = (tile_id % tiles_per_group) // group_rows
    return pid_m, pid_n


@triton.jit
def known_multiple(x, FACTOR: tl.constexpr):
    """`x` again, written so the compiler can prove it is a multiple of FACTOR (the caller checked it is).

    Triton only learns divisibility by 16 from its launcher; a row of 1000
    fp16 elements is 16-byte aligned, but nothing says so, and every load
    falls back to 2 bytes at a time.
    """
    return x // FACTOR * FACTOR


@triton.jit
def known_multiples(N, K, stride_ab, stride_am, stride_bb, stride_bk, stride_cb, stride_cm, FACTOR: tl.constexpr):
    """`known_multiple` of a pointer kernel's sizes and row-major strides, all checked by its launcher."""
    return (known_multiple(N, FACTOR), known_multiple(K, FACTOR), known_multiple(stride_ab, FACTOR),
            known_multiple(stride_am, FACTOR), known_multiple(stride_bb, FACTOR), known_multiple(stride_bk, FACTOR),
            known_multiple(stride_cb, FACTOR), known_multiple(stride_cm, FACTOR))


@triton.jit
def reciprocal(x):
    """1 / x: on a GPU the special-function unit's `rcp.approx.ftz` (within 1 ulp) alone, without the five range
    fix-ups per value that `1.0 / x` compiles to on sm_90."""
    if SFU:
        return tl.inline_asm_elementwise("rcp.approx.ftz.f32 $0, $1;", "=r,r", [x], dtype=tl.float32,
                                         is_pure=True, pack=1)
    else:
        return 1.0 / x


@triton.jit
def exp2(x):
    """2 ** x: on a GPU `ex2.approx.ftz` alone, without the fix-ups for results below 2**-126 (flushed to 0
    here: GELU's and SiLU's tails there are far below any float32 output's rounding)."""
    if SFU:
        return tl.inline_asm_elementwise("ex2.approx.ftz.f32 $0, $1;", "=r,r", [x], dtype=tl.float32,
                                         is_pure=True, pack=1)
    else:
        return tl.exp2(x)


@triton.jit
def gelu(x):
    """GELU in its exact form, x * Phi(x) = x * (1 + erf(x / sqrt(2))) / 2, with erf by Abramowitz and Stegun's
    7.1.26: 1 - erf(z) = q(t) * exp(-z^2), t = 1 / (1 + 0.3275911 z), z = |x| / sqrt(2), |error| <= 1.5e-7.
    One exponential, one reciprocal and five multiply-adds, where libdevice's erff took the pingpong kernel from
    212 to 469 us at 8192x8192x1024 (results/h200-linear-epilogue-probe-*.log); with `reciprocal` and `exp2`
    about 16 instructions per value on sm_90, where `1.0 / t` and `exp` made 30. For x < 0, 1 + erf is
    q * exp(-z^2) itself, never 1 minus a number close to 1, so the far negative tail keeps its relative
    precision."""
    t = reciprocal(1.0 + (0.3275911 * 0.7071067811865476) * tl.abs(x))
    q = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    tail = q * exp2((x * x) * (-0.5 * 1.4426950408889634))  # 1 - erf(z): exp(-x^2 / 2) in base 2
    return 0.5 * x * tl.where(x >= 0, 2.0 - tail, tail)


@triton.jit
def silu(x):
    """x * sigmoid(x) = x / (1 + exp(-x)), with `reciprocal` and `exp2`: five instructions per value on sm_90."""
    return x * reciprocal(1.0 + exp2(x * -1.4426950408889634))


@triton.jit
def apply_epilogue(acc, bias_ptr, off_n, N, BLOCK_N: tl.constexpr, ACTIVATION: tl.constexpr):
    """`tilelab.linear`'s epilogue on a float32 accumulator tile [rows, BLOCK_N] whose first column is column
    off_n of C: acc + bias[off_n : off_n + BLOCK_N] (bias read in float32, columns past N masked), then
    ACTIVATION ("relu", "gelu" in its exact erf form, "silu"; "" for none). It runs before the single rounding
    to C's dtype, so C is written once.

    GELU's erf is `gelu`'s polynomial in every kernel. libdevice's erff was faster on the persistent kernel
    than the polynomial written with `1.0 / t` and `exp` (4096^3 0.99x against 0.97x torch), and slower than
    it with `reciprocal` and `exp2` (8192x8192x1024: 57 us over the plain matmul against erff's 71;
    results/h200-linear-epilogue-probe-*.log).

    bias_ptr is None (a constexpr) for no bias. The kernels call this only when bias_ptr or ACTIVATION is
    given, a test on constexprs: a launch that passes neither (every matmul's) compiles to the code it did
    before the epilogue existed (tests/unit/test_linear_compile.py).
    """
    if bias_ptr is not None:
        cols = off_n + tl.arange(0, BLOCK_N)
        bias = tl.load(bias_ptr + cols, mask=cols < N, other=0.0).to(tl.float32)
        acc = acc + bias[None, :]
    if ACTIVATION == "relu":
        acc = tl.maximum(acc, 0.0)
    elif ACTIVATION == "gelu":
        acc = gelu(acc)
    elif ACTIVATION == "silu":
        acc = silu(acc)
    return acc


@triton.jit
def matmul_pointer_kernel(
    a_ptr, b_ptr, c_ptr,
    M, N, K,
    stride_ab, stride_am, stride_ak,
    stride_bb, stride_bk, stride_bn,
    stride_cb, stride_cm, stride_cn,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr,
    INPUT_PRECISION: tl.constexpr,
    OFFSETS_64: tl.constexpr,
    ALIGN: tl.constexpr,
    bias_ptr=None,
    ACTIVATION: tl.constexpr = "",
):
    """Pointer-arithmetic matmul: any strides, masks on every edge.

    ALIGN > 1: A, B and C are row-major, and N, K and their row and batch
    strides are multiples of ALIGN elements (the launcher checked), so rows
    start on ALIGN-element boundaries and the edge masks switch in whole
    ALIGN-element runs: the loads and stores can be vectorized.

    bias_ptr, ACTIVATION: `apply_epilogue` before the store (`tilelab.linear`);
    left at their defaults, nothing.
    """
    if ALIGN > 1:
        N, K, stride_ab, stride_am, stride_bb, stride_bk, stride_cb, stride_cm = known_multiples(
            N, K, stride_ab, stride_am, stride_bb, stride_bk, stride_cb, stride_cm, ALIGN)
    pid_m, pid_n = grouped_tile(tl.program_id(0), M, N, BLOCK_M, BLOCK_N, GROUP_M)
    batch = tl.program_id(1)
    if OFFSETS_64:
        # Element offsets past 2**31 would wrap in int32 arithmetic.
        batch = batch.to(tl.int64)
        pid_m = pid_m.to(tl.int64)
        pid_n = pid_n.to(tl.int64)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)  # which rows of C this tile owns
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)  # which columns of C
    ks = tl.arange(0, BLOCK_K)  # positions inside one K step

    a_tile = a_ptr + batch * stride_ab + rows[:, None] * stride_am + ks[None, :] * stride_ak
    b_tile = b_ptr + batch * stride_bb + ks[:, None] * stride_bk + cols[None, :] * stride_bn

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        # Masked lanes read 0, which adds nothing to a dot product.
        k_ok = (k0 + ks) < K
        a = tl.load(a_tile, mask=(rows[:, None] < M) & k_ok[None, :], other=0.0)
        b = tl.load(b_tile, mask=k_ok[:, None] & (cols[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision=INPUT_PRECISION)
        a_tile += BLOCK_K * stride_ak
        b_tile += BLOCK_K * stride_bk

    if bias_ptr is not None or ACTIVATION != "":  # not even a call otherwise: the kernel stays as it was
        acc = apply_epilogue(acc, bias_ptr, pid_n * BLOCK_N, N, BLOCK_N, ACTIVATION)
    c_tile = c_ptr + batch * stride_cb + rows[:, None] * stride_cm + cols[None, :] * stride_cn
    tl.store(c_tile, acc.to(c_ptr.dtype.element_ty), mask=(rows[:, None] < M) & (cols[None, :] < N))


@triton.jit
def operand_descriptors(a_base, b_base, M, N, K, stride_a_row, stride_b_row,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                        A_K_MAJOR: tl.constexpr, B_K_MAJOR: tl.constexpr):
    """Descriptors for A and B in the orientation they are stored in (each with a unit inner stride):
    A as [M, K] (A_K_MAJOR) or [K, M]; B as [K, N] or [N, K] (B_K_MAJOR). Zero padding past the edges."""
    if A_K_MAJOR:
        a_desc = tl.make_tensor_descriptor(a_base, [M, K], [stride_a_row, 1], [BLOCK_M, BLOCK_K])
    else:
        a_desc = tl.make_tensor_descriptor(a_base, [K, M], [stride_a_row, 1], [BLOCK_K, BLOCK_M])
    if B_K_MAJOR:
        b_desc = tl.make_tensor_descriptor(b_base, [N, K], [stride_b_row, 1], [BLOCK_N, BLOCK_K])
    else:
        b_desc = tl.make_tensor_descriptor(b_base, [K, N], [stride_b_row, 1], [BLOCK_K, BLOCK_N])
    return a_desc, b_desc


@triton.jit
def load_block(desc, batch, off_row, off_col):
    """The [rows, cols] block at (off_row, off_col) of a 2-D descriptor, or of matrix `batch` of a 3-D one.

    A host-built descriptor of a batch is 3-D, [batch, rows, cols] with [1, rows, cols] blocks: one
    descriptor serves every matrix, and no program builds its own. An operand shared by the whole batch,
    and every descriptor built in the kernel for its program's matrix, is 2-D; `batch` is then unused.
    Dropping the leading 1 is free: the block stays in shared memory, where the tensor cores read it.
    """
    if len(desc.block_shape) == 3:
        block = desc.load([batch, off_row, off_col])
        return block.reshape(desc.block_shape[1], desc.block_shape[2])
    else:
        return desc.load([off_row, off_col])


@triton.jit
def store_block(desc, batch, off_row, off_col, value):
    """Store a [rows, cols] block through a 2-D descriptor, or into matrix `batch` of a 3-D one."""
    if len(desc.block_shape) == 3:
        desc.store([batch, off_row, off_col], value.reshape(1, value.shape[0], value.shape[1]))
    else:
        desc.store([off_row, off_col], value)


@triton.jit
def load_class_block(desc, matrix, row_class, off_row, off_col):
    """The [rows, cols] block at (off_row, off_col) of class `row_class` of a matrix described by class
    (`row_classes` in tilelab.ops.matmul_plan): [classes, rows / classes, cols] for one GEMM, or
    [batch, classes, rows / classes, cols] with [1, 1, rows, cols] blocks for matrix `matrix` of a batch."""
    if len(desc.block_shape) == 4:
        block = desc.load([matrix, row_class, off_row, off_col])
        return block.reshape(desc.block_shape[2], desc.block_shape[3])
    else:
        return load_block(desc, row_class, off_row, off_col)


@triton.jit
def store_class_block(desc, matrix, row_class, off_row, off_col, value):
    """Store a [rows, cols] block into class `row_class` of a matrix described by class (`load_class_block`)."""
    if len(desc.block_shape) == 4:
        desc.store([matrix, row_class, off_row, off_col], value.reshape(1, 1, value.shape[0], value.shape[1]))
    else:
        store_block(desc, row_class, off_row, off_col, value)


@triton.jit
def store_c_block(c_desc, matrix, row_class, off_m, off_n, value, ROW_CLASSES: tl.constexpr):
    """Store a block of C into matrix `matrix`; with ROW_CLASSES > 1, into class `row_class` of it."""
    if ROW_CLASSES > 1:
        store_class_block(c_desc, matrix, row_class, off_m, off_n, value)
    else:
        store_block(c_desc, matrix, off_m, off_n, value)


@triton.jit
def class_tile(tile_id, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, GROUP_M: tl.constexpr,
               ROW_CLASSES: tl.constexpr):
    """(row class, pid_m within the class, pid_n) of a tile index when A's rows are read in ROW_CLASSES
    classes: the classes' tile rows are stacked, tile row t being row t // ROW_CLASSES of class
    t % ROW_CLASSES, so GROUP_M neighbours (`grouped_tile`) cover every class of the same rows of C."""
    class_tiles = tl.cdiv(M // ROW_CLASSES, BLOCK_M)
    pid_m, pid_n = grouped_tile(tile_id, ROW_CLASSES * class_tiles * BLOCK_M, N, BLOCK_M, BLOCK_N, GROUP_M)
    return pid_m % ROW_CLASSES, pid_m // ROW_CLASSES, pid_n


@triton.jit
def class_shift(row_class, stride_a_row, a_desc, ROW_CLASSES: tl.constexpr):
    """How many elements past a 16 * ROW_CLASSES-byte boundary the rows of class `row_class` start (A's
    base is on one): the program reads K from that many elements before 0, and TMA fills them with zeros."""
    unit: tl.constexpr = 16 * ROW_CLASSES // (a_desc.dtype.primitive_bitwidth // 8)  # in elements
    return row_class * stride_a_row % unit


@triton.jit
def load_operand_tiles(a_desc, b_desc, matrix, row_class, off_m, off_n, off_k, A_K_MAJOR: tl.constexpr,
                       B_K_MAJOR: tl.constexpr, ROW_CLASSES: tl.constexpr):
    """The [BLOCK_M, BLOCK_K] tile of A and [BLOCK_K, BLOCK_N] tile of B at (off_m, off_n, off_k), of
    matrix `matrix` where a descriptor describes a batch (`load_block`). With ROW_CLASSES > 1, A (stored
    [M, K]) is read from class `row_class` (`load_class_block`).

    A transposed operand is only re-viewed (`.T`): the tensor cores read it from shared memory as stored.
    """
    if ROW_CLASSES > 1:
        a = load_class_block(a_desc, matrix, row_class, off_m, off_k)
    elif A_K_MAJOR:
        a = load_block(a_desc, matrix, off_m, off_k)
    else:
        a = load_block(a_desc, matrix, off_k, off_m).T
    return a, load_b_block(b_desc, matrix, off_n, off_k, B_K_MAJOR)


@triton.jit
def load_b_block(b_desc, matrix, off_n, off_k, B_K_MAJOR: tl.constexpr):
    """B's [BLOCK_K, cols] block at (off_k, off_n), B stored [K, N] or [N, K] (B_K_MAJOR, re-viewed `.T`)."""
    if B_K_MAJOR:
        return load_block(b_desc, matrix, off_n, off_k).T
    else:
        return load_block(b_desc, matrix, off_k, off_n)


@triton.jit
def matmul_descriptor_kernel(
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
    HOST_DESCRIPTORS: tl.constexpr = False,
    ROW_CLASSES: tl.constexpr = 1,
    bias_ptr=None,
    ACTIVATION: tl.constexpr = "",
):
    """Tensor-descriptor matmul: tiles fetched whole, zero padding, no masks.

    A descriptor knows the full shape, so reads past an edge come back as
    zeros and writes past an edge are dropped by the hardware (TMA on Hopper).
    Each operand must have a unit inner stride: A is stored [M, K]
    (A_K_MAJOR) or [K, M]; B is stored [K, N] or [N, K] (B_K_MAJOR).

    HOST_DESCRIPTORS: a_ptr, b_ptr and c_ptr are descriptors the launcher
    built on the host, passed as kernel parameters (3-D for a batch:
    `load_block`); otherwise every program builds its own for its batch, in
    global scratch memory, first (the stride arguments are used only then).

    ROW_CLASSES > 1 (host descriptors, A stored [M, K] with rows that start
    16 bytes into a 32-byte sector): A and C are described by class,
    [ROW_CLASSES, M / ROW_CLASSES, cols] (4-D for a batch), class r holding
    rows r, r + ROW_CLASSES, ... whose starts all share one offset within
    16 * ROW_CLASSES bytes. A program owns the rows of one class and reads
    K from `shift` elements before 0, so every box of A starts on that
    boundary; TMA returns zeros for the columns of A and the rows of B
    before 0 (`tilelab.ops.matmul_plan.row_classes`).

    bias_ptr, ACTIVATION: `apply_epilogue` before the store (`tilelab.linear`);
    left at their defaults, nothing.
    """
    matrix = tl.program_id(1)
    if ROW_CLASSES > 1:
        row_class, pid_m, pid_n = class_tile(tl.program_id(0), M, N, BLOCK_M, BLOCK_N, GROUP_M, ROW_CLASSES)
        shift = class_shift(row_class, stride_a_row, a_ptr, ROW_CLASSES)
    else:
        pid_m, pid_n = grouped_tile(tl.program_id(0), M, N, BLOCK_M, BLOCK_N, GROUP_M)
        row_class = 0
        shift = 0
    if HOST_DESCRIPTORS:
        a_desc, b_desc, c_desc = a_ptr, b_ptr, c_ptr
    else:
        wide = matrix.to(tl.int64)
        a_desc, b_desc = operand_descriptors(a_ptr + wide * stride_ab, b_ptr + wide * stride_bb, M, N, K,
                                             stride_a_row, stride_b_row, BLOCK_M, BLOCK_N, BLOCK_K,
                                             A_K_MAJOR, B_K_MAJOR)
        c_desc = tl.make_tensor_descriptor(c_ptr + wide * stride_cb, [M, N], [stride_c_row, 1],
                                           [BLOCK_M, BLOCK_N])

    off_m = pid_m * BLOCK_M
    off_n = pid_n * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K + shift, BLOCK_K)):
        a, b = load_operand_tiles(a_desc, b_desc, matrix, row_class, off_m, off_n, k * BLOCK_K - shift,
                                  A_K_MAJOR, B_K_MAJOR, ROW_CLASSES)
        acc = tl.dot(a, b, acc, input_precision=INPUT_PRECISION)
    if bias_ptr is not None or ACTIVATION != "":
        acc = apply_epilogue(acc, bias_ptr, off_n, N, BLOCK_N, ACTIVATION)
    store_c_block(c_desc, matrix, row_class, off_m, off_n, acc.to(c_desc.dtype), ROW_CLASSES)


@triton.jit
def matmul_wide_kernel(
    a_desc, b_desc, c_desc, b_extra_desc, c_extra_desc,
    M, N, K,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr,
    INPUT_PRECISION: tl.constexpr,
    A_K_MAJOR: tl.constexpr,
    B_K_MAJOR: tl.constexpr,
):
    """`matmul_descriptor_kernel` with tiles 1.5 powers of two wide: BLOCK_N = 3 * 2**j (192, 96, 48).

    A Triton block has a power of two elements on each side, so a 128x192 tile is two: a 128x128 and a
    128x64 accumulator whose dots share A's block. Such tiles fill the SMs where powers of two fit them
    badly: 1536^3 makes 96 tiles of 128x192 for 132 SMs, against 72 of 128x256 or 144 (two waves) of
    128x128 (results/h200-three-halves-probe.log).

    The launcher builds the descriptors on the host (3-D for a batch, `load_block`): b_desc and c_desc
    with blocks BLOCK_N * 2 / 3 wide, b_extra_desc and c_extra_desc BLOCK_N / 3 wide, of the same B and C.
    A is stored [M, K] (A_K_MAJOR) or [K, M]; B is stored [K, N] or [N, K] (B_K_MAJOR).
    """
    main: tl.constexpr = BLOCK_N * 2 // 3
    matrix = tl.program_id(1)
    pid_m, pid_n = grouped_tile(tl.program_id(0), M, N, BLOCK_M, BLOCK_N, GROUP_M)
    off_m = pid_m * BLOCK_M
    off_n = pid_n * BLOCK_N
    acc = tl.zeros((BLOCK_M, main), dtype=tl.float32)
    acc_extra = tl.zeros((BLOCK_M, BLOCK_N - main), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a, b = load_operand_tiles(a_desc, b_desc, matrix, 0, off_m, off_n, k * BLOCK_K, A_K_MAJOR, B_K_MAJOR, 1)
        acc = tl.dot(a, b, acc, input_precision=INPUT_PRECISION)
        b_extra = load_b_block(b_extra_desc, matrix, off_n + main, k * BLOCK_K, B_K_MAJOR)
        acc_extra = tl.dot(a, b_extra, acc_extra, input_precision=INPUT_PRECISION)
    store_block(c_desc, matrix, off_m, off_n, acc.to(c_desc.dtype))
    store_block(c_extra_desc, matrix, off_m, off_n + main, acc_extra.to(c_extra_desc.dtype))
