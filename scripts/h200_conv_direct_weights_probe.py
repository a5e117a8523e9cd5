"""Does the direct kernel run faster on a filter stored taps first? (H200, twenty-seventh session)

    PYTHONPATH=src:. python scripts/h200_conv_direct_weights_probe.py

torch stores a depthwise filter [C, 1, KH, KW] with each channel's taps adjacent (strides KH*KW, ., KW, 1). The
direct kernel's tile is [pixels, channels], so a tap's weights for the tile's channels sit KH*KW elements apart:
Triton loads them one per thread and hands them round through shared memory (a store, a barrier, eight loads
and a barrier per tap at 16x64 on 2 warps), or lays the whole tile out one channel per thread (narrow tiles).
Stored taps first ([KH, KW, 1, C] permuted back: `weight.permute(2, 3, 1, 0).contiguous().permute(3, 2, 0, 1)`),
a tap's weights are one run of channels, as x's are. Compiled for sm_90 (no GPU), the narrow tiles' loop then
issues 3.7 instructions per FMA against 4.8.

Per layer (fp16, channels-last x, eval-mode conv2d -> batch_norm -> silu): torch, the permuted copy alone, then
every tile on each filter layout; triton.testing.do_bench (L2 flushed before each call), median, microseconds.
"""

import torch
import triton

import tilelab
from scripts.h200_conv_direct_taps_probe import LAYERS, layer_setup, timed
from tilelab.ops import conv as conv_op

# The candidates that won somewhere in the shipped table, and narrow tiles on 2 warps (one run of 16 or 32
# channels across a few threads, several pixels each).
TILES = [(16, 64, 2), (64, 64, 4), (128, 32, 4), (256, 16, 4), (128, 16, 2), (64, 32, 2),
         (32, 64, 2), (128, 32, 2), (256, 16, 2), (32, 32, 2)]


def taps_first(weight: torch.Tensor) -> torch.Tensor:
    return weight.permute(2, 3, 1, 0).contiguous().permute(3, 2, 0, 1)


def probe_layer(layer) -> dict:
    f = torch.nn.functional
    x, weight, bn, conv, (mean, var, gamma, beta) = layer_setup(layer)
    print(f"== {'x'.join(map(str, layer))}", flush=True)
    best = {}
    with torch.inference_mode():
        best["torch"] = timed(lambda: f.silu(f.batch_norm(f.conv2d(x, weight, **conv), mean, var, gamma, beta,
                                                          training=False)))
        best["copy"] = timed(lambda: taps_first(weight))
        print(f"  {'torch':28s} {best['torch']:8.1f} us\n  {'taps-first copy':28s} {best['copy']:8.1f} us",
              flush=True)
        ref = f.silu(f.batch_norm(f.conv2d(x.double(), weight.double(), **conv), mean.double(), var.double(),
                                  gamma.double(), beta.double(), training=False)).float()
        for name, w in (("torch-order", weight), ("taps-first", taps_first(weight))):
            for tile in TILES:
                config = conv_op.direct_tile(*tile)
                label = f"{name} {config.label()}"
                try:
                    y = tilelab.conv2d_bn_silu(x, w, **bn, **conv, config=config)
                    diff = (y.float() - ref).abs().max().item()
                    us = timed(lambda config=config, w=w: tilelab.conv2d_bn_silu(x, w, **bn, **conv, config=config))
                    print(f"  {label:28s} {us:8.1f} us  max |diff| from float64 {diff:.1e}", flush=True)
                    if us < best.get(name, (1e9,))[0]:
                        best[name] = (us, config.label())
                except Exception as e:  # a variant that fails is a result too
                    print(f"  {label:28s} failed: {type(e).__name__}: {str(e)[:120]}", flush=True)
    return best


def main() -> None:
    print(f"torch {torch.__version__}, triton {triton.__version__}, {torch.cuda.get_device_name()}", flush=True)
    summary = {layer: probe_layer(layer) for layer in LAYERS}
    print("\nbest per layer, us (torch | torch-order | taps-first | the copy alone)")
    for layer, b in summary.items():
        (order, order_tile), (first, first_tile) = b["torch-order"], b["taps-first"]
        print(f"  {'x'.join(map(str, layer)):28s} {b['torch']:7.1f} | {order:7.1f} {order_tile:20s}"
              f" | {first:7.1f} {first_tile:20s} | {b['copy']:5.1f}")


if __name__ == "__main__":
    main()
