"""Grouped convolutions with a few input channels per group: the direct kernel or the implicit GEMM? (H200)

    PYTHONPATH=src:. python scripts/h200_grouped_conv_probe.py

Call NNNNNNN timed ResNeXt's grouped 3x3 layers (4 and 8 channels per group, 32 groups) on the direct kernel at
0.07-0.11x torch, where depthwise layers on the same kernel ran at 1.3-2.4x. Here, per layer (fp16,
channels-last, eval-mode conv2d -> batch_norm -> silu): torch; tilelab's default (the direct kernel, tuned);
the direct kernel on smaller tiles (fewer sums and registers per thread); and the implicit GEMM (bundles of small
groups since `groups_per_tile`), each forced by replacing the path rule (`ops.conv.uses_direct_kernel`), tuned on
its first call.
triton.testing.do_bench (L2 flushed before each call), median, in microseconds.
"""

import math

import torch
import triton

import tilelab
from tilelab.ops import conv as conv_op

# batch, C_in, H, W, C_out, kernel, stride, groups
LAYERS = [(32, 64, 56, 56, 64, 3, 1, 32), (32, 128, 56, 56, 128, 3, 1, 32), (32, 256, 28, 28, 256, 3, 1, 32),
          (32, 512, 14, 14, 512, 3, 1, 64), (32, 144, 56, 56, 144, 3, 1, 144)]
SMALL_TILES = [conv_op.direct_tile(32, 32, 4), conv_op.direct_tile(64, 32, 4), conv_op.direct_tile(32, 64, 4),
               conv_op.direct_tile(16, 64, 2), conv_op.direct_tile(64, 16, 2)]


def timed(fn) -> float:
    return triton.testing.do_bench(fn, warmup=10, rep=100, return_mode="median") * 1000.0


def inputs(layer):
    batch, c_in, h, w, c_out, k, stride, groups = layer
    g = torch.Generator(device="cuda").manual_seed(0)
    x = torch.randn(batch, c_in, h, w, device="cuda", generator=g).half().to(memory_format=torch.channels_last)
    weight = (torch.randn(c_out, c_in // groups, k, k, device="cuda", generator=g)
              / math.sqrt(c_in // groups * k * k)).half().to(memory_format=torch.channels_last)
    stats = [torch.randn(c_out, device="cuda", generator=g).half() for _ in range(4)]
    stats[1] = stats[1].abs() + 0.5  # the variance
    return x, weight, stats, {"stride": stride, "padding": k // 2, "groups": groups}


def probe_layer(layer) -> None:
    f = torch.nn.functional
    real_rule = conv_op.uses_direct_kernel
    x, weight, (mean, var, gamma, beta), conv = inputs(layer)
    bn = {"running_mean": mean, "running_var": var, "bn_weight": gamma, "bn_bias": beta}
    flops = 2 * x.shape[0] * weight.shape[0] * weight[0].numel() * (x.shape[2] // conv["stride"]) ** 2
    ref = f.silu(f.batch_norm(f.conv2d(x.float(), weight.float(), **conv), mean.float(), var.float(),
                              gamma.float(), beta.float(), training=False))
    print(f"== {'x'.join(map(str, layer))} ({layer[1] // layer[7]} input channels per group)", flush=True)
    variants = {"torch": lambda: f.silu(f.batch_norm(f.conv2d(x, weight, **conv), mean, var, gamma, beta,
                                                     training=False)),
                "tilelab default": lambda: tilelab.conv2d_bn_silu(x, weight, **bn, **conv)}
    for tile in SMALL_TILES:
        variants[f"direct {tile.block_m}x{tile.block_n} w{tile.num_warps}"] = (
            lambda tile=tile: tilelab.conv2d_bn_silu(x, weight, **bn, **conv, config=tile))
    variants["implicit GEMM per group"] = variants["tilelab default"]  # with the path rule replaced, below
    for name, fn in variants.items():
        conv_op._REPLAYS.clear()
        if name == "implicit GEMM per group":
            conv_op.uses_direct_kernel = lambda g: False
        elif name.startswith("direct"):  # the direct kernel even where the rule bundles small groups
            conv_op.uses_direct_kernel = lambda g: True
        else:
            conv_op.uses_direct_kernel = real_rule
        try:
            with torch.inference_mode():
                err = (fn().float() - ref).norm().item() / ref.norm().item()
                us = timed(fn)
                plan = conv_op.describe_plan(x, weight, **bn, **conv) if "tilelab" in name or "GEMM" in name else None
        except Exception as e:  # a variant that fails is a result too
            print(f"  {name:28s} failed: {type(e).__name__}: {str(e)[:120]}", flush=True)
            continue
        finally:
            conv_op.uses_direct_kernel = real_rule
        note = f"  {plan['path']} {plan['config']}" if plan else ""
        print(f"  {name:28s} {us:8.1f} us  {flops / us / 1e6:6.2f} TFLOP/s  error {err:.1e}{note}", flush=True)


def main() -> None:
    for layer in LAYERS:
        probe_layer(layer)


if __name__ == "__main__":
    main()
