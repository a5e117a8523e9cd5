"""Do depthwise layers of 72, 120, 184 or 200 channels run faster once the direct kernel knows they are
multiples of 8? (H200; branch conv-direct-hints)

    PYTHONPATH=src:. python scripts/h200_conv_direct_hints_probe.py

MobileNetV3's depthwise layers have channel counts that are multiples of 8, not of the 16 Triton's
specialization sees. Compiled for sm_90 the direct kernel then loads and stores one element at a time in 196
registers, against 16-byte loads in 56 at 64 channels (`tests/unit/test_conv_planning.py`).
`ops.conv.direct_hint` passes CHANNEL_ALIGN. Per layer (fp16, channels-last, eval-mode conv2d -> batch_norm ->
silu): torch; the direct kernel unhinted (`direct_hint` replaced by 1) and hinted, each the best of every
candidate tile; triton.testing.do_bench (L2 flushed before each call), median, in microseconds.
"""

import torch
import triton

from scripts.h200_conv_vector_hints_probe import best_of_candidates
from scripts.h200_grouped_conv_probe import inputs, timed
from tilelab.ops import conv as conv_op

# batch, C_in, H, W, C_out, kernel, stride, groups: MobileNetV3-Large's depthwise layers at batch 32, and
# kernel-bench's ragged depthwise layer (36 channels, a multiple of 4)
LAYERS = [(32, 72, 56, 56, 72, 3, 1, 72), (32, 120, 28, 28, 120, 5, 1, 120), (32, 184, 14, 14, 184, 3, 1, 184),
          (32, 200, 14, 14, 200, 3, 1, 200), (7, 36, 31, 29, 36, 3, 1, 36)]
REAL_HINT = conv_op.direct_hint


def probe_layer(layer) -> None:
    f = torch.nn.functional
    x, weight, (mean, var, gamma, beta), conv = inputs(layer)
    bn = {"running_mean": mean, "running_var": var, "bn_weight": gamma, "bn_bias": beta}
    g = conv_op.ConvGeometry(*layer[:5], layer[5], layer[5], (layer[6],) * 2, (layer[5] // 2,) * 2, (1, 1), layer[7])
    y = torch.empty(layer[0], layer[4], g.oh, g.ow, device="meta").to(memory_format=torch.channels_last)  # as made
    print(f"== {'x'.join(map(str, layer))} (direct kernel: {conv_op.uses_direct_kernel(g)}, "
          f"CHANNEL_ALIGN {REAL_HINT(x, y, g)})", flush=True)
    with torch.inference_mode():
        us = timed(lambda: f.silu(f.batch_norm(f.conv2d(x, weight, **conv), mean, var, gamma, beta,
                                               training=False)))
        print(f"  {'torch':24s} {us:8.1f} us", flush=True)
        ref = f.silu(f.batch_norm(f.conv2d(x.double(), weight.double(), **conv), mean.double(), var.double(),
                                  gamma.double(), beta.double(), training=False)).float()
        for name, hint in (("unhinted", lambda *a: 1), ("hinted", REAL_HINT)):
            conv_op.direct_hint = hint
            try:
                us, label, diff = best_of_candidates(x, weight, bn, conv, ref)
                print(f"  {name:24s} {us:8.1f} us  {label}  max |diff| from float64 {diff:.1e}", flush=True)
            except Exception as e:  # a variant that fails is a result too
                print(f"  {name:24s} failed: {type(e).__name__}: {str(e)[:120]}", flush=True)
            finally:
                conv_op.direct_hint = REAL_HINT


def main() -> None:
    print(f"torch {torch.__version__}, triton {triton.__version__}, {torch.cuda.get_device_name()}", flush=True)
    for layer in LAYERS:
        probe_layer(layer)


if __name__ == "__main__":
    main()
