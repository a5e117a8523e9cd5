"""A convolution, batch norm and SiLU in one launch of one of two kernels: an implicit GEMM, or a direct
(depthwise) kernel for grouped convolutions with few input channels per group.

Only `@triton.jit` code lives here; `tilelab.ops.conv` checks the inputs, picks the kernel and a tile, and launches.

Groups mean what they mean in `torch.nn.functional.conv2d`: the C_in input and C_out output channels are split
into G groups, and output channel c only sees the C_in/G input channels of its own group, c // (C_out/G). The
weight is [C_out, C_in/G, KH, KW]. Depthwise is G = C_in: one input channel per group (MobileNet, EfficientNet).

The implicit GEMM (`conv2d_bn_silu_kernel`): each group (or bundle of small groups, below) is a matrix
product, never built in memory:

    C[M, N] = A[M, K] @ B[K, N]
    M = batch * OH * OW     one row per output pixel          (pixel m -> image n, row oh, column ow)
    N = C_out / G           one column per output channel of the group
    K = KH * KW * C_in / G  one term per filter tap and input channel of the group (k -> tap (r, s), channel c)

A[m, k] is the input pixel that filter tap (r, s) of output pixel m lands on, x[n, c, oh*stride - pad + r*dil,
ow*stride - pad + s*dil], or 0 where that falls in the padding around the image. B[k, n] is weight[n, c, r, s].
"Implicit": A exists only as addresses. Each K step loads its [BLOCK_M, BLOCK_K] block of A straight from x,
gathering one input pixel per row, so no im2col copy (KH*KW times the input) is ever written.

Groups of 2 to 15 input channels come several to a tile of the implicit GEMM (a bundle, with a block-diagonal
weight block). The direct kernel (`conv2d_bn_silu_direct_kernel`) takes depthwise convolutions (one input
channel per group), where a bundle would be mostly zeros, and small groups that cannot be bundled (an odd group
count): it multiplies and adds in float32 (FMAs), a tile of output pixels x output channels at a time.

The batch norm is folded per output channel inside either kernel, from its running statistics, so a call is
one launch:

    batch_norm(conv + bias) = conv * scale + shift
    scale = gamma / sqrt(var + eps)        shift = beta + (bias - mean) * scale

Every tensor arrives with its four strides: NCHW and channels-last storage, and sliced views, take the same
code (Triton specializes a stride of 1, so the contiguous dimension is known at compile time).
"""

import triton
import triton.language as tl

from tilelab.kernels.matmul import grouped_tile, known_multiple, silu
from tilelab.kernels.matmul_splitk import hand_in_slice, sum_of_slices


@triton.jit
def output_tile(pid_m, pid_n, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, OFFSETS_64: tl.constexpr):
    """A tile's output pixels and channels (its rows and columns), and which of them exist."""
    pixels = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    channels = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    if OFFSETS_64:
        # Element offsets past 2**31 would wrap in int32 arithmetic.
        pixels = pixels.to(tl.int64)
        channels = channels.to(tl.int64)
    return pixels, channels, pixels < M, channels < N


@triton.jit
def divide_by_constant(n, magic, shift):
    """n // d for 0 <= n < 2**31 and a divisor d fixed for the launch, as one 32x32->64-bit multiply and a shift:
    (magic, shift) = `ops.conv.division_magic(d)`. A 32-bit division by a value known only at run time compiles
    to a sequence of about twenty instructions."""
    return ((n.to(tl.uint32).to(tl.uint64) * magic.to(tl.uint64)) >> shift).to(tl.int32)


@triton.jit
def output_windows(pixels, OH, OW, STRIDE_H, STRIDE_W, PAD_H, PAD_W, OW_MAGIC, OW_SHIFT, OH_MAGIC, OH_SHIFT,
                   BY_MULTIPLICATION: tl.constexpr):
    """Which image, row and column each output pixel is, and where its filter window starts in x.

    BY_MULTIPLICATION (pixels under 2**31 only): divided by OW and OH by multiplication (`divide_by_constant`; the
    magic numbers are `ops.conv.division_magic`'s), where three divisions by run-time values compile to about
    twenty instructions each per pixel a thread holds. The direct kernel always does; the implicit GEMM in flat K
    steps, and in tap steps where the tuner chose it: on the H200 tap steps gained 4-23% on five layers that way
    but lost 10-25% on two with the same tiles (fp32's stem 233.7 -> 312.3 us, 28x28x128 in bf16 and fp32;
    calls WWWWWWWW and CCCCCCCCC)."""
    if BY_MULTIPLICATION:
        rows = divide_by_constant(pixels, OW_MAGIC, OW_SHIFT)  # pixels // OW
        image = divide_by_constant(rows, OH_MAGIC, OH_SHIFT)  # rows // OH
        oh = rows - image * OH
        ow = pixels - rows * OW
    else:
        image = pixels // (OH * OW)
        oh = (pixels // OW) % OH
        ow = pixels % OW
    return image, oh, ow, oh * STRIDE_H - PAD_H, ow * STRIDE_W - PAD_W


@triton.jit
def batch_norm_silu_store(acc, channels, channel_ok, bias_ptr, mean_ptr, var_ptr, gamma_ptr, beta_ptr, EPS,
                          y_ptr, image, oh, ow, pixel_ok, stride_yn, stride_yc, stride_yh, stride_yw,
                          SILU: tl.constexpr, HAS_BIAS: tl.constexpr, HAS_GAMMA: tl.constexpr,
                          HAS_BETA: tl.constexpr):
    """Both kernels' epilogue: the batch norm and SiLU on the float32 accumulator [pixels, channels] (`channels`:
    the output channels), then the one rounding to y's dtype and the one store, at output pixels (image, oh, ow).

    bias, mean, var, gamma and beta hold one value per output channel (any float dtype); without HAS_BIAS,
    HAS_GAMMA or HAS_BETA that term is 0, 1 or 0 and its pointer is never read. SILU=False stops after the batch
    norm, which tests use to see the two parts apart.
    """
    # The batch norm folded into one scale and one shift per channel (computed by every program: a few
    # instructions per channel).
    mean = tl.load(mean_ptr + channels, mask=channel_ok, other=0.0).to(tl.float32)
    var = tl.load(var_ptr + channels, mask=channel_ok, other=1.0).to(tl.float32)
    scale = tl.rsqrt(var + EPS)
    if HAS_GAMMA:
        scale *= tl.load(gamma_ptr + channels, mask=channel_ok, other=0.0).to(tl.float32)
    shift = -mean
    if HAS_BIAS:
        shift += tl.load(bias_ptr + channels, mask=channel_ok, other=0.0).to(tl.float32)
    shift *= scale
    if HAS_BETA:
        shift += tl.load(beta_ptr + channels, mask=channel_ok, other=0.0).to(tl.float32)
    z = acc * scale[None, :] + shift[None, :]
    if SILU:
        z = silu(z)  # x * sigmoid(x), on the special-function unit (kernels/matmul.py)

    # The output addresses are formed here, after the epilogue's loads: for groups=1 the implicit GEMM then
    # compiles to the same machine code as before groups existed.
    y_rows = y_ptr + image * stride_yn + oh * stride_yh + ow * stride_yw
    y_tile = y_rows[:, None] + channels[None, :] * stride_yc
    tl.store(y_tile, z.to(y_ptr.dtype.element_ty), mask=pixel_ok[:, None] & channel_ok[None, :])


@triton.jit
def within(i, n):
    """0 <= i < n as one unsigned comparison: a negative i, seen unsigned, is past any n. Two comparisons and an
    `and` per element were a third of flat_k_blocks' mask instructions."""
    if i.dtype.primitive_bitwidth == 64:
        return i.to(tl.uint64, bitcast=True) < n
    else:
        return i.to(tl.uint32, bitcast=True) < n


@triton.jit
def weight_rows(c, b_ok, group_channels, BLOCK_DIAGONAL: tl.constexpr, GROUP_C_IN, GROUP_C_OUT):
    """The weight's row for each input channel c of a K step, and `b_ok` (which [channel, output] pairs to read)
    narrowed for a bundle: there input channel c belongs to group c // GROUP_C_IN, and is row c % GROUP_C_IN of
    that group's weights; the other groups' outputs get a 0 from it."""
    if BLOCK_DIAGONAL:
        b_ok &= (c // GROUP_C_IN)[:, None] == (group_channels // GROUP_C_OUT)[None, :]
        rows = c % GROUP_C_IN
    else:
        rows = c
    return rows, b_ok


@triton.jit
def tap_blocks(step, c_steps, ks, x_images, w_channels, window_h, window_w, pixel_ok, channel_ok, group_channels,
               C_IN, H, W, stride_xc, stride_xh, stride_xw, stride_wc, stride_wh, stride_ww, DIL_H, DIL_W,
               KW: tl.constexpr, BLOCK_K: tl.constexpr, BLOCK_DIAGONAL: tl.constexpr, GROUP_C_IN, GROUP_C_OUT):
    """K step `step` of the implicit GEMM, taps outermost: filter tap step // c_steps, input channels
    (step % c_steps) * BLOCK_K + ks. A [pixels, BLOCK_K] holds one input pixel per row: with channels-last storage
    each row is a contiguous run of channels. B [BLOCK_K, channels] holds the weights that multiply it."""
    tap = step // c_steps
    r = tap // KW
    s = tap % KW
    c = (step % c_steps) * BLOCK_K + ks
    c_ok = c < C_IN
    ih = window_h + r * DIL_H
    iw = window_w + s * DIL_W
    # Taps in the padding read 0 (the mask), which adds nothing, as zero padding means.
    inside = pixel_ok & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
    x_rows = x_images + ih * stride_xh + iw * stride_xw
    a = tl.load(x_rows[:, None] + c[None, :] * stride_xc, mask=inside[:, None] & c_ok[None, :], other=0.0)
    w_cols = w_channels + r * stride_wh + s * stride_ww
    w_rows, b_ok = weight_rows(c, c_ok[:, None] & channel_ok[None, :], group_channels, BLOCK_DIAGONAL, GROUP_C_IN,
                               GROUP_C_OUT)
    b = tl.load(w_cols[None, :] + w_rows[:, None] * stride_wc, mask=b_ok, other=0.0)
    return a, b


@triton.jit
def flat_k_blocks(k, x_images, w_channels, window_h, window_w, pixel_ok, channel_ok, group_channels, C_IN,
                  C_IN_MAGIC, C_IN_SHIFT, H, W, stride_xc, stride_xh, stride_xw, stride_wc, stride_wh, stride_ww,
                  DIL_H, DIL_W, KH: tl.constexpr, KW: tl.constexpr, BLOCK_DIAGONAL: tl.constexpr, GROUP_C_IN,
                  GROUP_C_OUT, X_ALIGN: tl.constexpr):
    """The K step whose terms are `k` (a [BLOCK_K] range of K = KH * KW * C_IN), each its own filter tap and
    input channel: k = (r * KW + s) * C_IN + c. For 33 input channels a 3x3 filter takes 5 steps of 64 instead of
    9 (one per tap, each 33 of 64 full); for 3 channels one step of 32 instead of 9 of 16. The price: the padding
    test is made per element, not per pixel. The divisions are on k alone ([BLOCK_K]), not on the block, and the one
    by C_IN is a multiplication (`divide_by_constant`, (C_IN_MAGIC, C_IN_SHIFT) = `ops.conv.division_magic(C_IN)`):
    a division by a run-time value was about twenty instructions per column a thread holds."""
    if X_ALIGN > 1:
        # C_IN is a known multiple of X_ALIGN (`known_multiple`), so the compiler sees tap constant over runs of
        # X_ALIGN terms and loads them as vectors; through a multiplication it would not.
        tap = k // C_IN
    else:
        tap = divide_by_constant(k, C_IN_MAGIC, C_IN_SHIFT)  # k // C_IN: k < KH * KW * C_IN, far below 2**31
    c = k - tap * C_IN
    r = tap // KW
    s = tap - r * KW
    k_ok = r < KH  # terms past K (r = KH and beyond) read nothing
    ih = window_h[:, None] + (r * DIL_H)[None, :]
    iw = window_w[:, None] + (s * DIL_W)[None, :]
    inside = pixel_ok[:, None] & k_ok[None, :] & within(ih, H) & within(iw, W)
    x_rows = x_images + window_h * stride_xh + window_w * stride_xw  # each window's first tap
    x_terms = r * (DIL_H * stride_xh) + s * (DIL_W * stride_xw) + c * stride_xc
    a = tl.load(x_rows[:, None] + x_terms[None, :], mask=inside, other=0.0)
    w_rows, b_ok = weight_rows(c, k_ok[:, None] & channel_ok[None, :], group_channels, BLOCK_DIAGONAL, GROUP_C_IN,
                               GROUP_C_OUT)
    b = tl.load(w_channels[None, :] + (r * stride_wh + s * stride_ww + w_rows * stride_wc)[:, None], mask=b_ok,
                other=0.0)
    return a, b


@triton.jit
def conv2d_bn_silu_kernel(
    x_ptr, w_ptr, bias_ptr, mean_ptr, var_ptr, gamma_ptr, beta_ptr, y_ptr, ws_ptr, counters_ptr,
    BATCH, C_IN, H, W, C_OUT, OH, OW,
    stride_xn, stride_xc, stride_xh, stride_xw,
    stride_wo, stride_wc, stride_wh, stride_ww,
    stride_yn, stride_yc, stride_yh, stride_yw,
    STRIDE_H, STRIDE_W, PAD_H, PAD_W, DIL_H, DIL_W,
    EPS,
    GROUPS, GROUP_C_IN, GROUP_C_OUT,
    C_IN_MAGIC, C_IN_SHIFT, OW_MAGIC, OW_SHIFT, OH_MAGIC, OH_SHIFT,
    KH: tl.constexpr, KW: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr,
    INPUT_PRECISION: tl.constexpr,
    OFFSETS_64: tl.constexpr,
    SILU: tl.constexpr,
    HAS_BIAS: tl.constexpr, HAS_GAMMA: tl.constexpr, HAS_BETA: tl.constexpr,
    BLOCK_DIAGONAL: tl.constexpr,
    SPLIT_K: tl.constexpr,
    X_ALIGN: tl.constexpr, W_ALIGN: tl.constexpr, Y_ALIGN: tl.constexpr,
    FLAT_K: tl.constexpr = False,
    WINDOWS_BY_MULTIPLICATION: tl.constexpr = False,
):
    """y = SiLU(batch_norm(conv2d(x, w, groups) + bias)) as an implicit GEMM per bundle of groups: one
    BLOCK_M x BLOCK_N tile (pixels x the bundle's output channels) per program; the grid's second axis is the
    bundle. GROUPS counts bundles, and C_IN and C_OUT one bundle's channels: the product's K and N.

    SPLIT_K > 1 (layers of few pixels and long K: 7x7 images of 512 channels make 100 tiles of 64x128 for 132
    SMs, each 72 K steps long in fp16, 144 in fp32): each tile's K steps are cut into SPLIT_K slices, neighbours
    along the grid's first axis. Each slice hands its float32 partial tile in to a [bundles, tiles, SPLIT_K,
    BLOCK_M, BLOCK_N] workspace; the last to arrive sums them in slice order and runs the epilogue on the sum, as
    matmul's split-K kernel does (kernels/matmul_splitk.py).

    A bundle is one group (BLOCK_DIAGONAL False: C_IN and C_OUT are the group's), or, for groups of a few
    channels, several (C_IN / GROUP_C_IN of them): their product is one matrix product whose weight block is
    block-diagonal, input channel c feeding only its own group's GROUP_C_OUT outputs. The zeros cost tensor-core
    work, which such a layer has plenty of; one group per program would make programs too short to hide a load.

    FLAT_K: the K steps run over K as one flat range, filter tap and input channel together (`flat_k_blocks`),
    instead of one tap at a time: for few or ragged input channels, whose runs per tap fill little of a K step.
    WINDOWS_BY_MULTIPLICATION: the pixels' image, row and column found by multiplication (`output_windows`), as
    the launcher sets it for flat K steps and the tiles tuned so (`ops.conv.windows_by_multiplication_of`).

    X_ALIGN > 1 (W_ALIGN > 1): the launcher found C_IN and x's (the weight's) pixel strides multiples of it,
    which Triton's own specialization (multiples of 16) does not say of 24 or 40 channels. Rounded down to that
    multiple, the values stay the same and the compiler learns it: a run of channels then loads as X_ALIGN-element
    vectors (sm_90, 24 channels in fp16: 16-byte cp.async instead of one element at a time). Y_ALIGN: the same
    for C_OUT and y's pixel strides, so the tile is stored in vectors too.
    """
    M = BATCH * OH * OW
    C_IN = known_multiple(C_IN, X_ALIGN)
    C_IN = known_multiple(C_IN, W_ALIGN)
    stride_xn = known_multiple(stride_xn, X_ALIGN)
    stride_xh = known_multiple(stride_xh, X_ALIGN)
    stride_xw = known_multiple(stride_xw, X_ALIGN)
    stride_wo = known_multiple(stride_wo, W_ALIGN)
    stride_wh = known_multiple(stride_wh, W_ALIGN)
    stride_ww = known_multiple(stride_ww, W_ALIGN)
    C_OUT = known_multiple(C_OUT, Y_ALIGN)
    stride_yn = known_multiple(stride_yn, Y_ALIGN)
    stride_yh = known_multiple(stride_yh, Y_ALIGN)
    stride_yw = known_multiple(stride_yw, Y_ALIGN)
    # Split, a tile's slices are neighbours along the grid's first axis (slice fastest), so they run together and
    # the tiles' last slices, which sum and store, spread over the launch instead of all coming last.
    tile_id = tl.program_id(0)
    k_slice = 0
    if SPLIT_K > 1:
        k_slice = tile_id % SPLIT_K
        tile_id = tile_id // SPLIT_K
    pid_m, pid_n = grouped_tile(tile_id, M, C_OUT, BLOCK_M, BLOCK_N, GROUP_M)
    # Rows of C: output pixels; columns of C: the group's output channels.
    pixels, group_channels, pixel_ok, channel_ok = output_tile(pid_m, pid_n, M, C_OUT, BLOCK_M, BLOCK_N, OFFSETS_64)
    ks = tl.arange(0, BLOCK_K)  # input channels inside one K step
    if OFFSETS_64:
        ks = ks.to(tl.int64)

    image, oh, ow, window_h, window_w = output_windows(pixels, OH, OW, STRIDE_H, STRIDE_W, PAD_H, PAD_W, OW_MAGIC,
                                                      OW_SHIFT, OH_MAGIC, OH_SHIFT,
                                                      WINDOWS_BY_MULTIPLICATION and not OFFSETS_64)
    x_images = x_ptr + image * stride_xn
    channels = group_channels  # output channels in y, and in the weight's and batch norm's rows
    if GROUPS > 1:
        # Triton specializes GROUPS == 1 into a constant, so an ungrouped convolution compiles none of this (for
        # other values it is a branch every program takes, once).
        conv_group = tl.program_id(1)
        if OFFSETS_64:
            conv_group = conv_group.to(tl.int64)
        x_images += conv_group * C_IN * stride_xc  # the group's input channels
        channels += conv_group * C_OUT
    w_channels = w_ptr + channels * stride_wo

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    c_steps = tl.cdiv(C_IN, BLOCK_K)
    if FLAT_K:
        steps = tl.cdiv(KH * KW * C_IN, BLOCK_K)
    else:
        steps = KH * KW * c_steps
    first_step = 0
    if SPLIT_K > 1:  # this program's slice of the K steps
        per_slice = tl.cdiv(steps, SPLIT_K)
        first_step = k_slice * per_slice
        steps = tl.minimum(first_step + per_slice, steps)
    # The K loop walks the taps outermost and the input channels innermost, in BLOCK_K runs that never cross a
    # tap (`tap_blocks`), or, with FLAT_K, K as one range (`flat_k_blocks`). One loop over all K steps, so the
    # compiler pipelines the whole reduction, not a few channel runs per tap.
    for step in range(first_step, steps):
        if FLAT_K:
            a, b = flat_k_blocks(step * BLOCK_K + ks, x_images, w_channels, window_h, window_w, pixel_ok,
                                 channel_ok, group_channels, C_IN, C_IN_MAGIC, C_IN_SHIFT, H, W, stride_xc,
                                 stride_xh, stride_xw, stride_wc, stride_wh, stride_ww, DIL_H, DIL_W, KH, KW,
                                 BLOCK_DIAGONAL, GROUP_C_IN, GROUP_C_OUT, X_ALIGN)
        else:
            a, b = tap_blocks(step, c_steps, ks, x_images, w_channels, window_h, window_w, pixel_ok, channel_ok,
                              group_channels, C_IN, H, W, stride_xc, stride_xh, stride_xw, stride_wc, stride_wh,
                              stride_ww, DIL_H, DIL_W, KW, BLOCK_K, BLOCK_DIAGONAL, GROUP_C_IN, GROUP_C_OUT)
        acc = tl.dot(a, b, acc, input_precision=INPUT_PRECISION)

    if SPLIT_K == 1:
        batch_norm_silu_store(acc, channels, channel_ok, bias_ptr, mean_ptr, var_ptr, gamma_ptr, beta_ptr, EPS,
                              y_ptr, image, oh, ow, pixel_ok, stride_yn, stride_yc, stride_yh, stride_yw,
                              SILU, HAS_BIAS, HAS_GAMMA, HAS_BETA)
    else:
        # A tile's SPLIT_K partials lie together in the workspace as whole tiles, padding included: stored and
        # read back unmasked, at offsets known when compiling (M x N planes took masks and 2-16 more registers
        # per thread on sm_90). The launcher keeps the workspace under 2**31 elements.
        tile = tl.program_id(1) * (tl.num_programs(0) // SPLIT_K) + tile_id
        planes = ws_ptr + tile * (SPLIT_K * BLOCK_M * BLOCK_N)
        offsets = tl.arange(0, BLOCK_M)[:, None] * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]
        counter = counters_ptr + tile
        if hand_in_slice(acc, planes, BLOCK_M * BLOCK_N, offsets, None, counter, k_slice) == SPLIT_K - 1:
            # The sum and its epilogue in two halves of BLOCK_N / 2 columns: half as many values live at once.
            # sm_90, 2 slices: fp32 64x256 189 -> 128 registers, 128x256 spills 204 -> 16 bytes; H200 (call
            # XXXXXXX, same tiles): fp32 7x7x512 64.7 -> 63.1 us, 14x14x256 57.8 -> 54.5; fp16 64x128 38.4 -> 38.9.
            HALF: tl.constexpr = BLOCK_N // 2
            for half in tl.static_range(2):
                cols = half * HALF + tl.arange(0, HALF)
                half_offsets = tl.arange(0, BLOCK_M)[:, None] * BLOCK_N + cols[None, :]
                total = sum_of_slices(planes, BLOCK_M * BLOCK_N, half_offsets, None, SPLIT_K)
                ch = pid_n * BLOCK_N + cols  # int32 even with OFFSETS_64: the workspace, under 2**31, outnumbers y
                ch_ok = ch < C_OUT
                if GROUPS > 1:
                    ch += tl.program_id(1) * C_OUT
                batch_norm_silu_store(total, ch, ch_ok, bias_ptr, mean_ptr, var_ptr, gamma_ptr, beta_ptr,
                                      EPS, y_ptr, image, oh, ow, pixel_ok, stride_yn, stride_yc, stride_yh, stride_yw,
                                      SILU, HAS_BIAS, HAS_GAMMA, HAS_BETA)
            tl.atomic_xchg(counter, 0, sem="relaxed", scope="gpu")  # ready for the next launch


@triton.jit
def conv2d_bn_silu_direct_kernel(
    x_ptr, w_ptr, bias_ptr, mean_ptr, var_ptr, gamma_ptr, beta_ptr, y_ptr,
    BATCH, H, W, C_OUT, OH, OW,
    stride_xn, stride_xc, stride_xh, stride_xw,
    stride_wo, stride_wc, stride_wh, stride_ww,
    stride_yn, stride_yc, stride_yh, stride_yw,
    STRIDE_H, STRIDE_W, PAD_H, PAD_W, DIL_H, DIL_W,
    EPS,
    C_IN_PER_GROUP, C_OUT_PER_GROUP,
    OW_MAGIC, OW_SHIFT, OH_MAGIC, OH_SHIFT,
    KH: tl.constexpr, KW: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_C: tl.constexpr,
    OFFSETS_64: tl.constexpr,
    SILU: tl.constexpr,
    HAS_BIAS: tl.constexpr, HAS_GAMMA: tl.constexpr, HAS_BETA: tl.constexpr,
    CHANNEL_ALIGN: tl.constexpr,
    MULTIPLIER: tl.constexpr,
):
    """y = SiLU(batch_norm(conv2d(x, w, groups=C_OUT / C_OUT_PER_GROUP) + bias)) without a matrix product: one
    BLOCK_M x BLOCK_C tile (output pixels x output channels, across groups) per program, summed in float32 FMAs.

    Output channel c belongs to group c // C_OUT_PER_GROUP and reads that group's C_IN_PER_GROUP input channels
    (with a channel multiplier, C_OUT_PER_GROUP > 1, several output channels read the same ones). Depthwise,
    both are 1, which Triton specializes into constants: output channel c reads input channel c.

    CHANNEL_ALIGN > 1: the launcher found C_OUT and x's and y's pixel strides multiples of it (72 or 120 channels:
    multiples of 8, not of the 16 Triton's specialization sees), as the implicit GEMM's X_ALIGN and Y_ALIGN.
    MULTIPLIER > 1 (2, 4 or 8): depthwise with that channel multiplier (`ops.conv.direct_multiplier`).

    The kernel is bound by instructions issued, not by memory (Nsight Compute, call FFFFFFFF: the SMs 78% busy
    issuing, DRAM 19%), so its loop is written for few instructions per multiply-add: the filter's rows in a
    loop, each row's taps unrolled (their loads go out together), and the pixels' image, row and column found
    once, by multiplication (`divide_by_constant`).
    """
    M = BATCH * OH * OW
    C_OUT = known_multiple(C_OUT, CHANNEL_ALIGN)
    stride_xn = known_multiple(stride_xn, CHANNEL_ALIGN)
    stride_xh = known_multiple(stride_xh, CHANNEL_ALIGN)
    stride_xw = known_multiple(stride_xw, CHANNEL_ALIGN)
    stride_yn = known_multiple(stride_yn, CHANNEL_ALIGN)
    stride_yh = known_multiple(stride_yh, CHANNEL_ALIGN)
    stride_yw = known_multiple(stride_yw, CHANNEL_ALIGN)
    # Consecutive programs take consecutive pixel tiles of one channel tile, so the rows their filter windows
    # share (the halo above and below) are still in L2.
    pixels, channels, pixel_ok, channel_ok = output_tile(tl.program_id(0), tl.program_id(1), M, C_OUT, BLOCK_M,
                                                         BLOCK_C, OFFSETS_64)

    image, oh, ow, window_h, window_w = output_windows(pixels, OH, OW, STRIDE_H, STRIDE_W, PAD_H, PAD_W, OW_MAGIC,
                                                      OW_SHIFT, OH_MAGIC, OH_SHIFT, not OFFSETS_64)
    x_windows = image * stride_xn + window_h * stride_xh + window_w * stride_xw  # each window's first tap
    # Each output channel's first input channel. Depthwise with channels-last x (stride_xc == 1), adjacent output
    # channels read adjacent input channels: each pixel's loads are one contiguous run of channels, which
    # coalesces and vectorizes.
    x_first_channels = (channels // C_OUT_PER_GROUP) * C_IN_PER_GROUP
    w_channels = channels * stride_wo  # offsets, not addresses: 32-bit registers (64 with OFFSETS_64)
    if MULTIPLIER > 1:
        # Depthwise with a channel multiplier: output channel c reads input channel c // MULTIPLIER, so the
        # tile's input channels are one run of BLOCK_C / MULTIPLIER, loaded once per tap and repeated.
        in_channels = tl.program_id(1) * (BLOCK_C // MULTIPLIER) + tl.arange(0, BLOCK_C // MULTIPLIER)
        in_ok = in_channels < known_multiple(C_OUT // MULTIPLIER, CHANNEL_ALIGN)
        in_columns = in_channels * stride_xc

    acc = tl.zeros((BLOCK_M, BLOCK_C), dtype=tl.float32)
    # The filter's rows in a loop, and a row's taps unrolled: the row's bounds test and offset are computed once
    # for its taps, and their loads go out together. Unrolled whole, a 5x5 filter's 25 tiles of loads spill.
    for r in range(KH):
        ih = window_h + r * DIL_H
        row_ok = pixel_ok & (ih >= 0) & (ih < H)
        x_row = x_windows + r * DIL_H * stride_xh
        for s in tl.static_range(KW):
            iw = window_w + s * DIL_W
            # Taps in the padding read 0 (the mask), which adds nothing, as zero padding means.
            inside = row_ok & (iw >= 0) & (iw < W)
            x_tap = x_ptr + (x_row + s * DIL_W * stride_xw)
            w_tap = w_channels + r * stride_wh + s * stride_ww
            if MULTIPLIER > 1:
                a = tl.load(x_tap[:, None] + in_columns[None, :], mask=inside[:, None] & in_ok[None, :], other=0.0)
                a = tl.reshape(tl.broadcast_to(a[:, :, None], (BLOCK_M, BLOCK_C // MULTIPLIER, MULTIPLIER)),
                               (BLOCK_M, BLOCK_C)).to(tl.float32)
                b = tl.load(w_ptr + w_tap, mask=channel_ok, other=0.0).to(tl.float32)
                acc += a * b[None, :]
            else:
                x_ok = inside[:, None] & channel_ok[None, :]
                for j in range(C_IN_PER_GROUP):
                    # Each 2-D address formed inside the loop: hoisted out of it, a tile of 64-bit addresses per
                    # tap would stay live in registers.
                    x_columns = (x_first_channels + j) * stride_xc
                    a = tl.load(x_tap[:, None] + x_columns[None, :], mask=x_ok, other=0.0).to(tl.float32)
                    b = tl.load(w_ptr + (w_tap + j * stride_wc), mask=channel_ok, other=0.0).to(tl.float32)
                    acc += a * b[None, :]  # float32 multiply-adds, which the compiler fuses into FMAs

    batch_norm_silu_store(acc, channels, channel_ok, bias_ptr, mean_ptr, var_ptr, gamma_ptr, beta_ptr, EPS,
                          y_ptr, image, oh, ow, pixel_ok, stride_yn, stride_yc, stride_yh, stride_yw,
                          SILU, HAS_BIAS, HAS_GAMMA, HAS_BETA)
