"""How many taps' loads should the direct kernel issue at once, and on which tiles? (H200, twenty-sixth session)

    PYTHONPATH=src:. python scripts/h200_conv_direct_taps_probe.py            # every candidate tile
    PYTHONPATH=src:. python scripts/h200_conv_direct_taps_probe.py --tiles 16,64,2 128,16,2  # these only
    PYTHONPATH=src:. python scripts/h200_conv_direct_taps_probe.py --once L T  # layer L, tile T: 3 launches (ncu)

The depthwise layers of kernel-bench's grouped set move 0.4-1.9 TB/s on the direct kernel (call EEEEEEEE), where a
copy moves 4.3. Compiled for sm_90, its tap loop loaded one tap's [pixels, channels] tile (two 16-byte loads a
thread at 16x64 on 2 warps), waited for it, and multiplied: nine round trips to L2 in a row for a 3x3 filter.
`TAPS_IN_FLIGHT` (then the config's num_stages) unrolled that loop so several taps' loads went out together, at
the price of registers: 56 at one tap, 87 at three, 163 at all nine (16x64, sm_90).

Call FFFFFFFF ran this probe at commit 1ead5aa, which swept TAPS_IN_FLIGHT over 1, 2, 3 and all taps (5 for 5x5)
on four tiles (tiles were pixels,channels,warps,taps then). Three taps in flight gained 4-11% on 3x3 layers and
nothing on 5x5 ones, and Nsight Compute showed the kernel bound by instructions issued. The kernel now loops over
the filter's rows with each row's taps unrolled (call GGGGGGGG), so tiles are pixels,channels,warps.

Per layer (fp16, channels-last, eval-mode conv2d -> batch_norm -> silu): torch, then every tile given (default:
`ops.conv.DIRECT_CANDIDATES`); triton.testing.do_bench (L2 flushed before each call), median, in
microseconds, and the bytes of x read once and y written once over that time.
"""

import sys

import torch
import triton

import tilelab
from scripts.h200_grouped_conv_probe import inputs, timed
from tilelab.ops import conv as conv_op

# batch, C_in, H, W, C_out, kernel, stride, groups: kernel-bench's depthwise layers (conv2d_bn_silu-grouped),
# MobileNetV3's 72-channel layer, and the channel-multiplier layer (64 -> 128 channels)
LAYERS = [(32, 144, 56, 56, 144, 3, 1, 144), (32, 96, 112, 112, 96, 3, 2, 96), (32, 72, 56, 56, 72, 3, 1, 72),
          (32, 240, 28, 28, 240, 5, 1, 240), (32, 480, 14, 14, 480, 3, 1, 480), (32, 672, 14, 14, 672, 5, 1, 672),
          (32, 64, 56, 56, 128, 3, 1, 64)]
TILES = [(c.block_m, c.block_n, c.num_warps) for c in conv_op.DIRECT_CANDIDATES]


def layer_setup(layer):
    x, weight, (mean, var, gamma, beta), conv = inputs(layer)
    bn = {"running_mean": mean, "running_var": var, "bn_weight": gamma, "bn_bias": beta}
    return x, weight, bn, conv, (mean, var, gamma, beta)


def probe_layer(layer, tiles=None) -> None:
    f = torch.nn.functional
    x, weight, bn, conv, (mean, var, gamma, beta) = layer_setup(layer)
    out_pixels = (layer[2] // layer[6]) * (layer[3] // layer[6])
    moved = (x.numel() + layer[0] * layer[4] * out_pixels) * x.element_size()  # x read once, y written once
    print(f"== {'x'.join(map(str, layer))} ({moved / 1e6:.1f} MB moved at least)", flush=True)
    with torch.inference_mode():
        us = timed(lambda: f.silu(f.batch_norm(f.conv2d(x, weight, **conv), mean, var, gamma, beta,
                                               training=False)))
        print(f"  {'torch':24s} {us:8.1f} us", flush=True)
        ref = f.silu(f.batch_norm(f.conv2d(x.double(), weight.double(), **conv), mean.double(), var.double(),
                                  gamma.double(), beta.double(), training=False)).float()
        for tile in tiles or TILES:
            config = conv_op.direct_tile(*tile)
            try:
                y = tilelab.conv2d_bn_silu(x, weight, **bn, **conv, config=config)
                diff = (y.float() - ref).abs().max().item()
                us = timed(lambda config=config: tilelab.conv2d_bn_silu(x, weight, **bn, **conv, config=config))
                print(f"  {config.label():24s} {us:8.1f} us  {moved / us / 1e6:5.2f} TB/s  "
                      f"max |diff| from float64 {diff:.1e}", flush=True)
            except Exception as e:  # a variant that fails is a result too
                print(f"  {config.label():24s} failed: {type(e).__name__}: {str(e)[:120]}", flush=True)


def once(layer_index: int, tile_label: str) -> None:
    """Three launches of one layer at one tile (pixels,channels,warps), for a profiler to pick from."""
    x, weight, bn, conv, _ = layer_setup(LAYERS[layer_index])
    config = conv_op.direct_tile(*map(int, tile_label.split(",")))
    with torch.inference_mode():
        for _ in range(3):
            tilelab.conv2d_bn_silu(x, weight, **bn, **conv, config=config)
    torch.cuda.synchronize()


def main() -> None:
    if sys.argv[1:2] == ["--once"]:
        once(int(sys.argv[2]), sys.argv[3])
        return
    tiles = [tuple(map(int, t.split(","))) for t in sys.argv[2:]] if sys.argv[1:2] == ["--tiles"] else None
    print(f"torch {torch.__version__}, triton {triton.__version__}, {torch.cuda.get_device_name()}", flush=True)
    for layer in LAYERS:
        probe_layer(layer, tiles)


if __name__ == "__main__":
    main()
