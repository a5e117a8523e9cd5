"""Exercise 21 (workshop I10, after triton_matmul): a depthwise convolution, written for few instructions.

A depthwise convolution filters each channel on its own: output channel c is input channel c under its own KH x KW
filter, weight[c, 0]. With padding P and stride 1, y is [N, C, OH, OW] with OH = H + 2P - KH + 1 and OW likewise:

    y[n, c, oh, ow] = sum over r < KH, s < KW of x[n, c, oh - P + r, ow - P + s] * weight[c, 0, r, s]

where a tap that falls outside the image (in the padding) reads 0. That is torch's
conv2d(x, weight, padding=P, groups=C). A 3x3 filter makes 9 multiply-adds per output value, so the kernel has little
arithmetic per byte it moves, and one expects memory to set its time. tilelab's `conv2d_bn_silu_direct_kernel`
(src/tilelab/kernels/conv.py) showed otherwise: the SMs were busy issuing instructions, most of them not
multiply-adds. Two changes cut those: the filter's rows in a loop with each row's taps unrolled, and each pixel's
image, row and column found by multiplying instead of dividing. Yours does both, smaller: float32, stride 1, no
batch norm.

x is channels-last: x.stride(1) == 1, so a pixel's channels lie next to each other, and a tile of BLOCK_C channels
of one pixel is one contiguous run. y is made channels-last too.

Write the three parts in order, then run:  python -m learning.check triton_depthwise

1. division_magic: (magic, shift) with n // d == (n * magic) >> shift, computed on the host.
2. depthwise_kernel: one BLOCK_M x BLOCK_C tile of y (output pixels x channels) per program.
3. launch_depthwise: y, the magic numbers for OW and OH, one launch.

The checker runs your kernel on Triton's interpreter, with x and the weight in NaN and y poisoned and fenced by
guard zones. It also hands your kernel magic numbers that are one too small, to see y change where they say it
must: a kernel that still divides by OW or OH itself fails. What it cannot see is the loop's shape: all KH * KW taps
in one loop gives the same numbers. Part 6 of learning/workshops/I10_depthwise.md counts the instructions.
"""

import torch
import triton
import triton.language as tl


def division_magic(divisor):
    """(magic, shift) such that n // divisor == (n * magic) >> shift for every 0 <= n < 2**31, with magic < 2**32.

    shift = 31 + ceil(log2(divisor)), and magic = floor(2**shift / divisor) + 1, a little more than 2**shift / divisor.
    Use Python's integers, which are exact, for both: no float, no math.log2 (a float holds 53 bits, and rounds).
    Raise ValueError for divisor < 1.

    division_magic(1) == (2147483649, 31)
    division_magic(56) == (2454267027, 37)    (123456 * 2454267027) >> 37 == 2204 == 123456 // 56
    This is the library's rule: division_magic in src/tilelab/ops/conv.py.
    """
    raise NotImplementedError("division_magic: shift = 31 + ceil(log2(divisor)), magic = 2**shift / divisor "
                              "rounded down, plus 1, in integers; ValueError below 1")


@triton.jit
def depthwise_kernel(x_ptr, w_ptr, y_ptr, N, C, H, W, OH, OW, PAD,
                     stride_xn, stride_xc, stride_xh, stride_xw,
                     stride_wc, stride_wh, stride_ww,
                     stride_yn, stride_yc, stride_yh, stride_yw,
                     OW_MAGIC, OW_SHIFT, OH_MAGIC, OH_SHIFT,
                     KH: tl.constexpr, KW: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_C: tl.constexpr):
    """Program (tl.program_id(0), tl.program_id(1)) computes BLOCK_M output pixels x BLOCK_C channels of y.

    The output pixels are numbered 0 .. N * OH * OW - 1 in y's order: pixel = (image * OH + oh) * OW + ow.
    Element [n, c, h, w] of x is at x_ptr + n * stride_xn + c * stride_xc + h * stride_xh + w * stride_xw (y
    likewise); weight[c, 0, r, s] is at w_ptr + c * stride_wc + r * stride_wh + s * stride_ww."""
    # TODO: pixels = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M), channels likewise with tl.program_id(1)
    #       and BLOCK_C; pixel_ok = pixels < N * OH * OW, channel_ok = channels < C.
    # TODO: no // and no % by OW or OH (each about twenty instructions): rows = pixels // OW as
    #       ((pixels.to(tl.int64) * OW_MAGIC) >> OW_SHIFT).to(tl.int32), then image = rows // OH the same way with
    #       OH_MAGIC and OH_SHIFT; then oh = rows - image * OH and ow = pixels - rows * OW.
    # TODO: each window's top row and left column in x: top = oh - PAD, left = ow - PAD (negative in the padding).
    # TODO: acc = tl.zeros((BLOCK_M, BLOCK_C), dtype=tl.float32), before any loop.
    # TODO: `for r in range(KH):` the filter's rows. Per row, once: ih = top + r and
    #       row_ok = pixel_ok & (ih >= 0) & (ih < H).
    # TODO: inside it, `for s in tl.static_range(KW):` the row's taps, unrolled. iw = left + s,
    #       inside = row_ok & (iw >= 0) & (iw < W); load the [BLOCK_M, BLOCK_C] block of x at image, ih, iw and the
    #       tile's channels, masked with inside[:, None] & channel_ok[None, :], other=0.0 (a tap in the padding adds
    #       0); load the tap's [BLOCK_C] weights masked with channel_ok; acc += a * b[None, :].
    # TODO: store acc at image, oh, ow and the tile's channels of y, masked with pixel_ok and channel_ok.
    pass


def launch_depthwise(x, weight, padding, out=None, block_m=16, block_c=16):
    """y = conv2d(x, weight, padding=padding, groups=C) for float32 x [N, C, H, W] (channels-last, x.stride(1) == 1)
    and weight [C, 1, KH, KW], either possibly a strided view: pass every tensor's own strides.

    Writes into `out` (float32 [N, C, OH, OW], any strides) when it is given, else into a new channels-last tensor,
    torch.empty((N, C, OH, OW), dtype=torch.float32, memory_format=torch.channels_last), and returns the tensor
    it wrote. OH = H + 2 * padding - KH + 1, OW likewise.

    One launch of depthwise_kernel on the grid (cdiv(N * OH * OW, block_m), cdiv(C, block_c)), with
    division_magic(OW) as OW_MAGIC, OW_SHIFT and division_magic(OH) as OH_MAGIC, OH_SHIFT, KH and KW from the
    weight's shape, and BLOCK_M=block_m, BLOCK_C=block_c (powers of two).
    """
    raise NotImplementedError("launch_depthwise: OH and OW, y unless out is given, division_magic of OW and of OH, "
                              "then one launch on (cdiv(N * OH * OW, block_m), cdiv(C, block_c))")
