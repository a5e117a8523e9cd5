"""Which GPU kernels one call launches (torch.profiler): what a benchmark measures tilelab against.

cuBLAS names its kernels after what they do, e.g. `nvjet_sm90_hsh_256x128_64x4_1x2_h_bz_coopA_NNT`: an sm_90
kernel with 256x128 tiles, K steps of 64 in 4 stages, a 1x2 cluster. kernel-bench records these names in the
torch variant's plan, so a report says which kernel each ratio was measured against.
"""

import re
import warnings

import torch


def launched_kernels(fn, *args) -> list[str]:
    """The names of the GPU activities (kernels, memsets, copies) one call of `fn(*args)` runs, in order;
    [] when no argument is a CUDA tensor."""
    if not any(isinstance(x, torch.Tensor) and x.is_cuda for x in args):
        return []
    from torch.profiler import ProfilerActivity, profile

    torch.cuda.synchronize()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the profiler warns about its own cycles
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            fn(*args)
            torch.cuda.synchronize()
    return [event.name for event in prof.events() if event.device_type == torch.autograd.DeviceType.CUDA]


def short_name(name: str, width: int = 80) -> str:
    """A kernel name without `void `, template arguments and parameter lists, at most `width` characters.
    ("Memset (Device)" keeps its words: a parameter list follows the name without a space.)"""
    name = name.removeprefix("void ").split("<", 1)[0]
    name = re.sub(r"(?<=\S)\(.*$", "", name)
    return name if len(name) <= width else name[: width - 1] + "…"
