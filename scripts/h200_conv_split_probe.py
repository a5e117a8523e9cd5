"""Would split-K help conv2d_bn_silu where it loses? An emulation, before building it (H200)

    PYTHONPATH=src:. python scripts/h200_conv_split_probe.py

fp32 loses at 32x256x14x14x256 (0.81x) and 32x512x7x7x512 (0.72x), and fp16 is level at 7x7x512: few output
pixels (M = 6272 and 1568), long K (2304 and 4608), so 98-196 programs of long K loops for 132 SMs.

Split-K in S slices would run S times the programs, each over K/S, write float32 partial sums [S, M, N], and
sum them (then the batch norm and SiLU) in a second kernel. Its first kernel is emulated here by the layer with
S times the batch and C_in/S input channels: the same M*S x N tiles of K/S, writing S partial outputs, laid out
[S, M, N] (channels-last). The sum is timed apart (torch.sum over the slices, with a cold L2: an upper bound,
as a real second kernel reads partials the first just wrote). For fp16 the emulated partials are fp16, half the
bytes a float32 workspace would write.

Per layer and dtype: torch (conv2d -> batch_norm -> silu), tilelab's default, and each S with each tile;
tuning.measure_ms (CUDA events, cold L2), variants in turns (scripts/turns.py).
"""

import dataclasses
import math

import torch
import triton

import tilelab
from scripts.turns import first_calls, medians_in_turns
from tilelab import tuning
from tilelab.ops import conv as conv_op
from tilelab.tuning import Config

# batch, C_in, H, W, C_out (3x3, stride 1, padding 1)
LAYERS = [(32, 256, 14, 14, 256), (32, 512, 7, 7, 512), (8, 256, 40, 40, 256)]
SPLITS = (1, 2, 4, 8)
EXTRA = (Config(64, 128, 64, 8, num_warps=4, num_stages=3), Config(64, 64, 64, 8, num_warps=4, num_stages=3),
         Config(128, 128, 64, 8, num_warps=8, num_stages=4), Config(64, 256, 64, 8, num_warps=8, num_stages=3))


def tiles(dtype: torch.dtype) -> list[Config]:
    base = list(conv_op.GPU_CANDIDATES) + list(EXTRA)
    if dtype == torch.float32:
        base = [dataclasses.replace(c, block_k=c.block_k // 2) for c in base]
    return list(dict.fromkeys(base))


def tensors(batch, c_in, h, w, c_out, dtype, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    x = torch.randn(batch, c_in, h, w, device="cuda", generator=g).to(dtype).to(memory_format=torch.channels_last)
    weight = (torch.randn(c_out, c_in, 3, 3, device="cuda", generator=g) / math.sqrt(c_in * 9)).to(dtype)
    weight = weight.to(memory_format=torch.channels_last)
    stats = [torch.randn(c_out, device="cuda", generator=g).to(dtype) for _ in range(4)]
    stats[1] = stats[1].abs() + 0.5
    return x, weight, dict(zip(("running_mean", "running_var", "bn_weight", "bn_bias"), stats, strict=True))


def probe(layer, dtype) -> None:
    f = torch.nn.functional
    batch, c_in, h, w, c_out = layer
    x, weight, bn = tensors(*layer, dtype)
    print(f"== {'x'.join(map(str, layer))} 3x3 {str(dtype).removeprefix('torch.')}", flush=True)
    variants = {
        "torch": lambda: f.silu(f.batch_norm(f.conv2d(x, weight, padding=1), bn["running_mean"], bn["running_var"],
                                             bn["bn_weight"], bn["bn_bias"], training=False)),
        "tilelab default": lambda: tilelab.conv2d_bn_silu(x, weight, **bn, padding=1),
    }
    sums = {}
    for s in SPLITS:
        xs, ws, bns = tensors(batch * s, c_in // s, h, w, c_out, dtype, seed=s)
        for c in tiles(dtype):
            name = f"S{s} {c.block_m}x{c.block_n}x{c.block_k} w{c.num_warps} s{c.num_stages}"
            variants[name] = lambda xs=xs, ws=ws, bns=bns, c=c: tilelab.conv2d_bn_silu(xs, ws, **bns, padding=1,
                                                                                     config=c)
        if s > 1:
            partials = torch.randn(s, batch * h * w, c_out, device="cuda")
            sums[f"sum of {s} float32 slices"] = lambda p=partials: p.sum(0)
    first_calls(variants)
    medians = medians_in_turns(variants, rounds=5)
    base = medians["torch"]
    print(f"  torch {base * 1e3:.1f} us; tilelab default {medians['tilelab default'] * 1e3:.1f} us "
          f"({base / medians['tilelab default']:.3f}x)", flush=True)
    for s in SPLITS:
        rows = sorted((ms, name) for name, ms in medians.items() if name.startswith(f"S{s} "))
        best = ", ".join(f"{name.split(' ', 1)[1]} {ms * 1e3:.1f}" for ms, name in rows[:4])
        print(f"  S={s}: best four (us): {best}", flush=True)
    for name, ms in medians_in_turns(sums, rounds=5).items():
        print(f"  {name}: {ms * 1e3:.1f} us (cold L2)", flush=True)


def main() -> None:
    print(f"torch {torch.__version__}, triton {triton.__version__}, {torch.cuda.get_device_name()}", flush=True)
    print(f"tuning.measure_ms samples: {tuning.TUNING_SAMPLES}", flush=True)
    for dtype in (torch.float32, torch.float16):
        for layer in LAYERS:
            probe(layer, dtype)


if __name__ == "__main__":
    main()
