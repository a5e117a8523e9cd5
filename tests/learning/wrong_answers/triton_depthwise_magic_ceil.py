"""The magic number is 2**shift / d rounded up with ceil(): the rule's value except at powers of two."""

import torch
import triton
import triton.language as tl


def division_magic(divisor):
    if divisor < 1:
        raise ValueError(f"divisor must be at least 1; got {divisor}")
    shift = 31 + (divisor - 1).bit_length()  # (d - 1).bit_length() is ceil(log2(d)): 0 for 1, 6 for 56, 6 for 64
    magic = -(-(1 << shift) // divisor)  # the bug: ceil(2**shift / d), one short of the rule where d divides 2**shift
    return magic, shift


@triton.jit
def depthwise_kernel(x_ptr, w_ptr, y_ptr, N, C, H, W, OH, OW, PAD,
                     stride_xn, stride_xc, stride_xh, stride_xw,
                     stride_wc, stride_wh, stride_ww,
                     stride_yn, stride_yc, stride_yh, stride_yw,
                     OW_MAGIC, OW_SHIFT, OH_MAGIC, OH_SHIFT,
                     KH: tl.constexpr, KW: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_C: tl.constexpr):
    pixels = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)  # flattened over N * OH * OW
    channels = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    pixel_ok = pixels < N * OH * OW
    channel_ok = channels < C

    # Image, row and column of each pixel: two multiplications in 64 bits and two shifts, no division.
    rows = ((pixels.to(tl.int64) * OW_MAGIC) >> OW_SHIFT).to(tl.int32)  # pixels // OW: (image, oh) as one number
    image = ((rows.to(tl.int64) * OH_MAGIC) >> OH_SHIFT).to(tl.int32)  # rows // OH
    oh = rows - image * OH
    ow = pixels - rows * OW

    top = oh - PAD  # the filter window's first row and column in x (negative in the padding)
    left = ow - PAD
    x_windows = x_ptr + image * stride_xn + top * stride_xh + left * stride_xw  # [BLOCK_M]: each window's tap (0, 0)
    x_channels = channels * stride_xc  # [BLOCK_C]
    w_channels = w_ptr + channels * stride_wc

    acc = tl.zeros((BLOCK_M, BLOCK_C), dtype=tl.float32)
    for r in range(KH):  # the filter's rows in a loop ...
        ih = top + r
        row_ok = pixel_ok & (ih >= 0) & (ih < H)  # one bounds test per row, shared by its KW taps
        x_row = x_windows + r * stride_xh
        for s in tl.static_range(KW):  # ... and a row's taps unrolled: their loads can go out together
            iw = left + s
            inside = row_ok & (iw >= 0) & (iw < W)  # taps in the padding read 0, which adds nothing
            a = tl.load(x_row[:, None] + s * stride_xw + x_channels[None, :],
                        mask=inside[:, None] & channel_ok[None, :], other=0.0)
            b = tl.load(w_channels + r * stride_wh + s * stride_ww, mask=channel_ok, other=0.0)  # [BLOCK_C]
            acc += a * b[None, :]

    y = y_ptr + image * stride_yn + oh * stride_yh + ow * stride_yw
    tl.store(y[:, None] + channels[None, :] * stride_yc, acc, mask=pixel_ok[:, None] & channel_ok[None, :])


def launch_depthwise(x, weight, padding, out=None, block_m=16, block_c=16):
    n, c, h, w = x.shape
    kh, kw = weight.shape[2], weight.shape[3]
    oh, ow = h + 2 * padding - kh + 1, w + 2 * padding - kw + 1
    if out is None:
        out = torch.empty((n, c, oh, ow), dtype=torch.float32, device=x.device, memory_format=torch.channels_last)
    ow_magic, ow_shift = division_magic(ow)
    oh_magic, oh_shift = division_magic(oh)
    grid = (triton.cdiv(n * oh * ow, block_m), triton.cdiv(c, block_c))
    depthwise_kernel[grid](x, weight, out, n, c, h, w, oh, ow, padding,
                           x.stride(0), x.stride(1), x.stride(2), x.stride(3),
                           weight.stride(0), weight.stride(2), weight.stride(3),
                           out.stride(0), out.stride(1), out.stride(2), out.stride(3),
                           ow_magic, ow_shift, oh_magic, oh_shift,
                           KH=kh, KW=kw, BLOCK_M=block_m, BLOCK_C=block_c)
    return out
