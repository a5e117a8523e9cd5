"""A convolution, batch norm and SiLU in one kernel: the convolution computed as a matrix product (implicit GEMM).

Only `@triton.jit` code lives here; `tilelab.ops.conv` checks the inputs, picks a tile and launches.

The product, without ever building it in memory:

    C[M, N] = A[M, K] @ B[K, N]
    M = batch * OH * OW     one row per output pixel          (pixel m -> image n, row oh, column ow)
    N = C_out               one column per output channel
    K = KH * KW * C_in      one term per filter tap and input channel (k -> tap (r, s), channel c)

A[m, k] is the input pixel that filter tap (r, s) of output pixel m lands on, x[n, c, oh*stride - pad + r*dil,
ow*stride - pad + s*dil], or 0 where that falls in the padding around the image. B[k, n] is weight[n, c, r, s].
"Implicit": A exists only as addresses. Each K step loads its [BLOCK_M, BLOCK_K] block of A straight from x,
gathering one input pixel per row, so no im2col copy (KH*KW times the input) is ever written.

The batch norm is folded per output channel inside the kernel, from its running statistics, so a call is one
launch:

    batch_norm(conv + bias) = conv * scale + shift
    scale = gamma / sqrt(var + eps)        shift = beta + (bias - mean) * scale

The K loop walks the taps outermost and the input channels innermost, in BLOCK_K runs that never cross a tap,
so one K step reads one input pixel per row: with channels-last storage each row of the block is a contiguous
run of channels.

Every tensor arrives with its four strides: NCHW and channels-last storage, and sliced views, take the same
code (Triton specializes a stride of 1, so the contiguous dimension is known at compile time).
"""

import triton
import triton.language as tl

from tilelab.kernels.matmul import grouped_tile


@triton.jit
def conv2d_bn_silu_kernel(
    x_ptr, w_ptr, bias_ptr, mean_ptr, var_ptr, gamma_ptr, beta_ptr, y_ptr,
    BATCH, C_IN, H, W, C_OUT, OH, OW,
    stride_xn, stride_xc, stride_xh, stride_xw,
    stride_wo, stride_wc, stride_wh, stride_ww,
    stride_yn, stride_yc, stride_yh, stride_yw,
    STRIDE_H, STRIDE_W, PAD_H, PAD_W, DIL_H, DIL_W,
    EPS,
    KH: tl.constexpr, KW: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr,
    INPUT_PRECISION: tl.constexpr,
    OFFSETS_64: tl.constexpr,
    SILU: tl.constexpr,
    HAS_BIAS: tl.constexpr, HAS_GAMMA: tl.constexpr, HAS_BETA: tl.constexpr,
):
    """y = SiLU(batch_norm(conv2d(x, w) + bias)), one BLOCK_M x BLOCK_N tile (pixels x output channels) per program.

    bias, mean, var, gamma and beta hold one value per output channel (any float dtype); without HAS_BIAS,
    HAS_GAMMA or HAS_BETA that term is 0, 1 or 0 and its pointer is never read. SILU=False stops after the batch
    norm, which tests use to see the two parts apart.
    """
    M = BATCH * OH * OW
    pid_m, pid_n = grouped_tile(tl.program_id(0), M, C_OUT, BLOCK_M, BLOCK_N, GROUP_M)
    pixels = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)  # rows of C: output pixels
    channels = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)  # columns of C: output channels
    ks = tl.arange(0, BLOCK_K)  # input channels inside one K step
    if OFFSETS_64:
        # Element offsets past 2**31 would wrap in int32 arithmetic.
        pixels = pixels.to(tl.int64)
        channels = channels.to(tl.int64)
        ks = ks.to(tl.int64)
    pixel_ok = pixels < M
    channel_ok = channels < C_OUT

    # Which image, row and column each output pixel is, and where its filter window starts in x.
    image = pixels // (OH * OW)
    oh = (pixels // OW) % OH
    ow = pixels % OW
    window_h = oh * STRIDE_H - PAD_H
    window_w = ow * STRIDE_W - PAD_W
    x_images = x_ptr + image * stride_xn
    w_channels = w_ptr + channels * stride_wo

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    c_steps = tl.cdiv(C_IN, BLOCK_K)
    # One loop over all K steps (tap, then channel run), so the compiler pipelines the whole reduction, not
    # a few channel runs per tap.
    for step in range(0, KH * KW * c_steps):
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
        b = tl.load(w_cols[None, :] + c[:, None] * stride_wc, mask=c_ok[:, None] & channel_ok[None, :], other=0.0)
        acc = tl.dot(a, b, acc, input_precision=INPUT_PRECISION)

    # The epilogue, on the float32 accumulator before the one rounding to y's dtype: the batch norm folded into
    # one scale and one shift per channel (BLOCK_N values, computed by every program: a few instructions).
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
        z = z * tl.sigmoid(z)

    y_rows = y_ptr + image * stride_yn + oh * stride_yh + ow * stride_yw
    y_tile = y_rows[:, None] + channels[None, :] * stride_yc
    tl.store(y_tile, z.to(y_ptr.dtype.element_ty), mask=pixel_ok[:, None] & channel_ok[None, :])
