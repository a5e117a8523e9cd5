"""Do channel runs of 24 or 40 channels load faster once the kernel knows they are multiples of 8? (H200)

    PYTHONPATH=src:. python scripts/h200_conv_vector_hints_probe.py

Triton specializes an integer argument on being a multiple of 16 only. A group (or bundle of groups) of 24 input
channels, or a dense layer of 24 or 40, is a multiple of 8 that the compiler cannot see: compiled for sm_90,
x and the weight then load one element at a time, outside the async-copy pipeline, where a multiple of 16
loads in 16-byte cp.async (`tests/unit/test_conv_planning.py`). `ops.conv.vector_hints` now tells the kernel
for x and the weight, and `ops.conv.output_hint` for y (the stores, whose layout the compiler gave the whole
tile's index arithmetic: 40 channels at 64x64x64 took 255 registers without it, 149 with it).
Per layer (fp16, channels-last x and weight, eval-mode conv2d -> batch_norm -> silu): torch; the implicit GEMM
unhinted (both replaced by 1s), with x and the weight hinted (call ZZZZZZZ's "hinted", before `output_hint`
existed), and hinted, each the best of every candidate tile (`ops.conv.candidates`); for groups of 3 also
bundles of 16 and 32 groups (`groups_per_tile` replaced), which were faster than 8 before the hints
(results/h200-conv-bundle-probe.log: 169 and 159 against 281 us).
triton.testing.do_bench (L2 flushed before each call), median, in microseconds.
"""

import torch
import triton

import tilelab
from scripts.h200_grouped_conv_probe import inputs, timed
from tilelab.ops import conv as conv_op

# batch, C_in, H, W, C_out, kernel, stride, groups
LAYERS = [
    (32, 168, 28, 28, 168, 3, 1, 7),  # RegNetX-1.6GF's stage 2: groups of 24 channels, one per tile
    (32, 408, 14, 14, 408, 3, 1, 17),  # its stage 3
    (32, 24, 112, 112, 24, 3, 1, 1),  # a dense 3x3 layer of 24 channels
    (32, 40, 56, 56, 40, 3, 1, 1),  # of 40
    (32, 24, 56, 56, 144, 1, 1, 1),  # MobileNetV2's 1x1 expansion of 24 channels
    (32, 96, 56, 56, 96, 3, 1, 32),  # groups of 3: bundles of 8 groups, 24 channels
]
REAL_HINTS = conv_op.vector_hints
REAL_OUTPUT_HINT = conv_op.output_hint
REAL_BUNDLES = conv_op.groups_per_tile


def best_of_candidates(x, weight, bn, conv, ref) -> tuple[float, str, float]:
    """The fastest candidate tile: (microseconds, its label, max |difference| from `ref`)."""
    conv_op._REPLAYS.clear()  # recorded launches carry the hints they were recorded with
    g = conv_op.ConvGeometry(x.shape[0], x.shape[1], x.shape[2], x.shape[3], weight.shape[0], weight.shape[2],
                             weight.shape[3], (conv["stride"],) * 2, (conv["padding"],) * 2, (1, 1), conv["groups"])
    best = (float("inf"), "", 0.0)
    for config in conv_op.candidates(g, x.element_size()):
        y = tilelab.conv2d_bn_silu(x, weight, **bn, **conv, config=config)
        us = timed(lambda config=config: tilelab.conv2d_bn_silu(x, weight, **bn, **conv, config=config))
        if us < best[0]:
            best = (us, config.label(), (y.float() - ref).abs().max().item())
    return best


def probe_layer(layer) -> None:
    f = torch.nn.functional
    x, weight, (mean, var, gamma, beta), conv = inputs(layer)
    weight = weight.to(memory_format=torch.channels_last)
    bn = {"running_mean": mean, "running_var": var, "bn_weight": gamma, "bn_bias": beta}
    g = conv_op.ConvGeometry(*layer[:5], layer[5], layer[5], (1, 1), (layer[5] // 2,) * 2, (1, 1), layer[7])
    y = torch.empty(layer[0], layer[4], g.oh, g.ow, device="meta").to(memory_format=torch.channels_last)  # as made
    print(f"== {'x'.join(map(str, layer))} ({layer[1] // layer[7]} input channels per group, bundle {g.bundle}, "
          f"hints {REAL_HINTS(x, weight, g)}, output {REAL_OUTPUT_HINT(y, g)})", flush=True)
    with torch.inference_mode():
        us = timed(lambda: f.silu(f.batch_norm(f.conv2d(x, weight, **conv), mean, var, gamma, beta,
                                               training=False)))
        print(f"  {'torch':24s} {us:8.1f} us", flush=True)
        ref = f.silu(f.batch_norm(f.conv2d(x.double(), weight.double(), **conv), mean.double(), var.double(),
                                  gamma.double(), beta.double(), training=False)).float()
        none = lambda *a: (1, 1)  # noqa: E731
        variants = [("unhinted", none, lambda *a: 1, REAL_BUNDLES),
                    ("x and w hinted", REAL_HINTS, lambda *a: 1, REAL_BUNDLES),
                    ("hinted", REAL_HINTS, REAL_OUTPUT_HINT, REAL_BUNDLES)]
        if layer[1] // layer[7] == 3:
            variants += [(f"hinted, bundles of {b}", REAL_HINTS, REAL_OUTPUT_HINT, lambda g, b=b: b) for b in (16, 32)]
        for name, hints, output, bundles in variants:
            conv_op.vector_hints, conv_op.output_hint, conv_op.groups_per_tile = hints, output, bundles
            try:
                us, label, diff = best_of_candidates(x, weight, bn, conv, ref)
                print(f"  {name:24s} {us:8.1f} us  {label}  max |diff| from float64 {diff:.1e}", flush=True)
            except Exception as e:  # a variant that fails is a result too
                print(f"  {name:24s} failed: {type(e).__name__}: {str(e)[:120]}", flush=True)
            finally:
                conv_op.vector_hints, conv_op.output_hint, conv_op.groups_per_tile = (REAL_HINTS, REAL_OUTPUT_HINT,
                                                                                      REAL_BUNDLES)


def main() -> None:
    print(f"torch {torch.__version__}, triton {triton.__version__}, {torch.cuda.get_device_name()}", flush=True)
    for layer in LAYERS:
        probe_layer(layer)


if __name__ == "__main__":
    main()
