"""Would the direct kernel gain from more warps per SM, its registers capped? (H200, twenty-seventh session)

    PYTHONPATH=src:. python scripts/h200_conv_direct_registers_probe.py

Nsight Compute on the 144-channel depthwise layer (call HHHHHHHH, `results/h200-ncu-direct-rows-256-16-4.log`):
the 256x16 tile on 4 warps takes 151 registers, so an SM holds 3 programs (12 warps, 19% occupancy), and in 35%
of cycles no warp is ready to issue. Compiled for sm_90 (no GPU), ptxas's `maxnreg` of 128 spills 16 bytes there
and 96 spills 56; the 16x64 tile on 2 warps fits 64 (3x3, 72 unlimited) and 96 (5x5, 110) without spilling.
Here each tile with and without the cap, launched through `ops.conv._launch` with the kernel's launcher
wrapped (as `scripts/h200_conv_split_registers_probe.py` does for the implicit GEMM), then replayed; timed as
`scripts/h200_conv_direct_taps_probe.py` times (triton.testing.do_bench, L2 flushed, median, microseconds).
Call LLLLLLLL timed `_launch` itself: its host time (Triton's binder) exceeded the GPU's on most layers.
"""

import torch
import triton

import tilelab.kernels.conv as conv_kernels
from scripts.h200_conv_direct_taps_probe import LAYERS, layer_setup, timed
from tilelab.ops import bound_launch
from tilelab.ops import conv as conv_op

REAL = conv_kernels.conv2d_bn_silu_direct_kernel
# (pixels, channels, warps): caps to try beside none
TILES = {(16, 64, 2): (64, 80, 96), (256, 16, 4): (128, 96), (128, 16, 2): (128, 96), (64, 32, 2): (128, 96),
         (128, 32, 4): (128, 96), (64, 64, 4): (128, 96)}


class CappedRegisters:
    """conv2d_bn_silu_direct_kernel launched with ptxas's maxnreg."""

    def __init__(self, maxnreg: int):
        self.maxnreg, self.arg_names = maxnreg, REAL.arg_names

    def __getitem__(self, grid):
        launch = REAL[grid]
        return lambda *args, **options: launch(*args, maxnreg=self.maxnreg, **options)


def probe_layer(layer) -> dict:
    f = torch.nn.functional
    x, weight, bn, conv, (mean, var, gamma, beta) = layer_setup(layer)
    batch, c_in, h, w, c_out, k, stride, groups = layer
    g = conv_op.ConvGeometry(batch, c_in, h, w, c_out, k, k, (stride, stride), (k // 2, k // 2), (1, 1), groups)
    per_channel = (None, mean, var, gamma, beta)
    y = conv_op._allocate_output(x, g)
    print(f"== {'x'.join(map(str, layer))}", flush=True)

    def launch(config, maxnreg=None):
        """Compile and launch once through `_launch` (its launcher wrapped), then a replay of that launch as
        the public call's recorded replays do (`bind_launch_on_stream`): Triton's binder alone costs more host
        time than these layers take on the GPU, which would time the host."""
        conv_kernels.conv2d_bn_silu_direct_kernel = REAL if maxnreg is None else CappedRegisters(maxnreg)
        try:
            compiled, grid, args = conv_op._launch(config, x, weight, per_channel, y, 1e-5, g, "tf32", True)
        finally:
            conv_kernels.conv2d_bn_silu_direct_kernel = REAL
        pointers = [t.data_ptr() for t in args[:conv_op.DIRECT_POINTERS]]
        replay = bound_launch.bind_launch_on_stream(compiled, grid, args[conv_op.DIRECT_POINTERS:], x.device)
        return lambda: replay(*pointers)

    best = {}
    with torch.inference_mode():
        best["torch"] = (timed(lambda: f.silu(f.batch_norm(f.conv2d(x, weight, **conv), mean, var, gamma, beta,
                                                           training=False))), "")
        print(f"  {'torch':32s} {best['torch'][0]:8.1f} us", flush=True)
        ref = f.silu(f.batch_norm(f.conv2d(x.double(), weight.double(), **conv), mean.double(), var.double(),
                                  gamma.double(), beta.double(), training=False)).float()
        for tile, caps in TILES.items():
            config = conv_op.direct_tile(*tile)
            for cap in (None, *caps):
                label = f"{config.label()} maxnreg {cap or '-'}"
                try:
                    y.fill_(float("nan"))
                    run = launch(config, cap)
                    diff = (y.float() - ref).abs().max().item()
                    us = timed(run)
                    print(f"  {label:32s} {us:8.1f} us  max |diff| from float64 {diff:.1e}", flush=True)
                    key = "capped" if cap else "uncapped"
                    if us < best.get(key, (1e9,))[0]:
                        best[key] = (us, label)
                except Exception as e:  # a variant that fails is a result too
                    print(f"  {label:32s} failed: {type(e).__name__}: {str(e)[:120]}", flush=True)
    return best


def main() -> None:
    print(f"torch {torch.__version__}, triton {triton.__version__}, {torch.cuda.get_device_name()}", flush=True)
    summary = {layer: probe_layer(layer) for layer in LAYERS}
    print("\nbest per layer, us (torch | no cap | capped)")
    for layer, b in summary.items():
        (free, free_label), (capped, capped_label) = b["uncapped"], b["capped"]
        print(f"  {'x'.join(map(str, layer)):28s} {b['torch'][0]:7.1f} | {free:7.1f} {free_label:30s}"
              f" | {capped:7.1f} {capped_label}")


if __name__ == "__main__":
    main()
