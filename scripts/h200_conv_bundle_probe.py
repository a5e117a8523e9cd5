"""How many small groups should share an implicit-GEMM tile? (H200)

    PYTHONPATH=src:. python scripts/h200_conv_bundle_probe.py

`ops.conv.groups_per_tile` bundles groups of 2 to 15 input channels until a bundle spans PACKED_K input channels
(64): more groups per tile make longer programs but multiply more zeros (the weight block is block-diagonal)
and load more of it. Here PACKED_K of 16, 32, 64 and 128 on ResNeXt-like layers, each bundle size tuned on its
first call (its own tuning key), against torch's conv2d(groups) -> batch_norm -> silu; fp16, channels-last,
triton.testing.do_bench (L2 flushed before each call), median, in microseconds.
"""

import torch
import triton

import tilelab
from scripts.h200_grouped_conv_probe import inputs, timed
from tilelab.ops import conv as conv_op

LAYERS = [(32, 64, 56, 56, 64, 3, 1, 32), (32, 128, 56, 56, 128, 3, 1, 32), (32, 256, 28, 28, 256, 3, 1, 32),
          (32, 512, 14, 14, 512, 3, 1, 64), (32, 96, 56, 56, 96, 3, 1, 32)]
PACKED = (16, 32, 64, 128)


def probe_layer(layer) -> None:
    f = torch.nn.functional
    x, weight, (mean, var, gamma, beta), conv = inputs(layer)
    bn = {"running_mean": mean, "running_var": var, "bn_weight": gamma, "bn_bias": beta}
    print(f"== {'x'.join(map(str, layer))} ({layer[1] // layer[7]} input channels per group)", flush=True)
    with torch.inference_mode():
        us = timed(lambda: f.silu(f.batch_norm(f.conv2d(x, weight, **conv), mean, var, gamma, beta,
                                               training=False)))
        print(f"  {'torch':24s} {us:8.1f} us", flush=True)
        ref = tilelab.conv2d_bn_silu(x, weight, **bn, **conv).float()
        for packed in PACKED:
            conv_op.PACKED_K = packed
            conv_op._REPLAYS.clear()
            try:
                y = tilelab.conv2d_bn_silu(x, weight, **bn, **conv)
                us = timed(lambda: tilelab.conv2d_bn_silu(x, weight, **bn, **conv))
                plan = conv_op.describe_plan(x, weight, **bn, **conv)
            except Exception as e:  # a variant that fails is a result too
                print(f"  PACKED_K {packed:<15d} failed: {type(e).__name__}: {str(e)[:120]}", flush=True)
                continue
            diff = (y.float() - ref).abs().max().item()
            cfg = plan["config"]
            print(f"  PACKED_K {packed:<15d} {us:8.1f} us  bundle {plan['groups_per_tile']:3d}  "
                  f"{cfg['block_m']}x{cfg['block_n']}x{cfg['block_k']} w{cfg['num_warps']} s{cfg['num_stages']}  "
                  f"max |diff| from PACKED_K 64: {diff:.1e}", flush=True)
        conv_op.PACKED_K = 64


def main() -> None:
    print(f"torch {torch.__version__}, triton {triton.__version__}, {torch.cuda.get_device_name()}", flush=True)
    for layer in LAYERS:
        probe_layer(layer)


if __name__ == "__main__":
    main()
