"""conv2d_bn_silu's split-K: does capping registers (3 programs per SM) win back what the emulation promised? (H200)

    PYTHONPATH=src:. python scripts/h200_conv_split_registers_probe.py

The emulation (scripts/h200_conv_split_probe.py) timed S-fold split layers at 29.2 us (fp16 7x7x512, S=4) and
50.4 us (fp32); the real split kernel tuned to 38.8 and 62.9 (TTTTTTT). The split kernel keeps the last slice's
sum and each loaded partial in registers at once: fp16 64x128x64 on 4 warps takes 172-192 registers against 143
unsplit, so an SM holds 2 programs instead of 3. Here each split tile with and without ptxas's `maxnreg` (168:
three 128-thread programs per SM; ptxas spills what does not fit), against torch and the unsplit tiles, launched
through `ops.conv._launch` (Triton's binder; tuning.measure_ms gives the GPU a head start), in turns.
"""

import torch
import triton

import tilelab.kernels.conv as conv_kernels
from scripts.h200_conv_split_probe import tensors
from scripts.turns import first_calls, medians_in_turns
from tilelab.ops import conv as conv_op

LAYERS = [((32, 512, 7, 7, 512), torch.float16), ((32, 512, 7, 7, 512), torch.float32),
          ((32, 256, 14, 14, 256), torch.float32), ((32, 256, 14, 14, 256), torch.float16)]
REAL = conv_kernels.conv2d_bn_silu_kernel


class CappedRegisters:
    """conv2d_bn_silu_kernel launched with ptxas's maxnreg."""

    def __init__(self, maxnreg: int):
        self.maxnreg, self.arg_names = maxnreg, REAL.arg_names

    def __getitem__(self, grid):
        launch = REAL[grid]
        return lambda *args, **options: launch(*args, maxnreg=self.maxnreg, **options)


def tiles(dtype):
    bk = 64 if dtype != torch.float32 else 32
    unsplit = [conv_op.ConvConfig(64, 128, bk, 8, num_warps=4, num_stages=s) for s in (3, 4)]
    unsplit.append(conv_op.ConvConfig(128, 128, bk, 8, num_warps=8, num_stages=3))
    split = [conv_op.ConvConfig(64, 128, bk, 8, num_warps=4, num_stages=s, split_k=k) for s in (3, 4) for k in (2, 4)]
    split += [conv_op.ConvConfig(64, 256, bk, 8, num_warps=8, num_stages=3, split_k=2),
              conv_op.ConvConfig(128, 128, bk, 8, num_warps=8, num_stages=4, split_k=2)]
    return unsplit, split


def probe(layer, dtype) -> None:
    f = torch.nn.functional
    x, weight, bn = tensors(*layer, dtype)
    g = conv_op.ConvGeometry(*layer, 3, 3, (1, 1), (1, 1), (1, 1))
    per_channel = (None, bn["running_mean"], bn["running_var"], bn["bn_weight"], bn["bn_bias"])
    y = conv_op._allocate_output(x, g)
    print(f"== {'x'.join(map(str, layer))} 3x3 {str(dtype).removeprefix('torch.')}", flush=True)

    def launch(config, maxnreg=None):
        def run():
            conv_kernels.conv2d_bn_silu_kernel = REAL if maxnreg is None else CappedRegisters(maxnreg)
            try:
                conv_op._launch(config, x, weight, per_channel, y, 1e-5, g, "tf32", True)
            finally:
                conv_kernels.conv2d_bn_silu_kernel = REAL
            return y
        return run

    variants = {"torch": lambda: f.silu(f.batch_norm(f.conv2d(x, weight, padding=1), bn["running_mean"],
                                                     bn["running_var"], bn["bn_weight"], bn["bn_bias"],
                                                     training=False))}
    unsplit, split = tiles(dtype)
    for c in unsplit:
        variants[c.label()] = launch(c)
    for c in split:
        variants[c.label()] = launch(c)
        if c.num_warps == 4:
            variants[c.label() + " maxnreg 168"] = launch(c, 168)
    first_calls(variants)
    medians = medians_in_turns(variants, rounds=6)
    base = medians["torch"]
    for name, ms in sorted(medians.items(), key=lambda item: item[1]):
        print(f"  {name:36s} {ms * 1e3:7.1f} us ({base / ms:.3f}x torch)", flush=True)


def main() -> None:
    print(f"torch {torch.__version__}, triton {triton.__version__}, {torch.cuda.get_device_name()}", flush=True)
    for layer, dtype in LAYERS:
        probe(layer, dtype)


if __name__ == "__main__":
    main()
