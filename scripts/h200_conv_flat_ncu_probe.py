"""Nsight Compute on flat and tap K steps at the layers flat steps won (run on the H200 under ncu).

    ncu --profile-from-start off --clock-control none --section ... \
        python scripts/h200_conv_flat_ncu_probe.py

The 3-channel stem (8x3x640x640 -> 32, 3x3, stride 2) reads 20 MB and writes 52 MB, about 18 us at the H200's
copy rate; with flat K steps it takes 115 us (fp16, call WWWWWWWW), with tap steps 164. This runs each layer once
per tile, after warm-up calls outside cudaProfilerStart/Stop, so Nsight Compute sees one launch of each: what
bounds it (memory, L1 wavefronts, issue, occupancy). fp16; kernel-bench's inputs (channels-last x and weight).
"""

import torch

import tilelab
from tilelab.bench import op_conv
from tilelab.ops.conv import ConvConfig

# (layer, tiles): the shipped flat winner, and the tap tile it replaced (from results/h200-tuning-cache-flat-k.json).
LAYERS = [
    ((8, 3, 640, 640, 32, 3, 2), [ConvConfig(64, 32, 32, 8, 4, 4, flat_k=True), ConvConfig(128, 32, 16, 8, 4, 4)]),
    ((7, 33, 31, 29, 65, 3, 1), [ConvConfig(64, 64, 64, 8, 4, 4, flat_k=True), ConvConfig(64, 32, 64, 8, 4, 4)]),
]


def main() -> None:
    generator = torch.Generator(device="cuda").manual_seed(0)
    calls = []
    for shape, tiles in LAYERS:
        x, weight, bias, mean, var, gamma, beta, stride = op_conv.make_inputs(shape, torch.float16, "cuda", generator)
        for config in tiles:
            def call(x=x, weight=weight, bias=bias, mean=mean, var=var, gamma=gamma, beta=beta, stride=stride,
                     config=config):
                return tilelab.conv2d_bn_silu(x, weight, bias, running_mean=mean, running_var=var, bn_weight=gamma,
                                              bn_bias=beta, stride=stride, padding=1, config=config)
            for _ in range(3):
                call()
            calls.append((f"{'x'.join(map(str, shape))} {config.label()}", call))
            print(calls[-1][0], flush=True)
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStart()
    for _, call in calls:
        call()
        torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStop()


if __name__ == "__main__":
    main()
