"""Where kernels run: a CUDA GPU, or Triton's interpreter on the CPU."""

import functools
import os

import torch


def interpreting() -> bool:
    """True when Triton runs kernels on the CPU (TRITON_INTERPRET=1)."""
    return os.environ.get("TRITON_INTERPRET", "0") == "1"


def triton_imported_for_a_gpu() -> bool:
    """Whether triton was imported while TRITON_INTERPRET was off: its own @triton.jit functions (tl.cdiv's, say) are
    then JIT functions for a GPU, and the interpreter cannot call them ("Cannot call @triton.jit'd outside of the
    scope of a kernel"). Only asked when a kernel is about to run on the interpreter."""
    import sys

    standard = sys.modules.get("triton.language.standard")
    return standard is not None and type(standard.cdiv).__name__ == "JITFunction"


def has_cuda() -> bool:
    return torch.cuda.is_available()


@functools.cache
def capability(device_index: int) -> tuple[int, int]:
    return torch.cuda.get_device_capability(device_index)


def is_hopper_or_newer(device: torch.device) -> bool:
    """TMA and wgmma need compute capability 9.0 or newer."""
    if device.type != "cuda":
        return False
    return capability(device.index if device.index is not None else torch.cuda.current_device())[0] >= 9


@functools.cache
def has_gluon() -> bool:
    """Whether Triton's Gluon dialect (triton.experimental.gluon, Hopper's wgmma and warp specialization by
    hand) can be imported: the registers path is written in it."""
    try:
        import triton.experimental.gluon.language.nvidia.hopper  # noqa: F401
    except ImportError:
        return False
    return True


@functools.cache
def gpu_name(device_index: int) -> str:
    return torch.cuda.get_device_name(device_index)
