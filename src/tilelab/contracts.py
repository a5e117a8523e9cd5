"""Input contracts: every public op checks its arguments here first.

Each failure is a typed error whose message names the argument and says what
was expected, so a wrong call never reaches a kernel (where it could crash,
hang or write out of bounds).
"""

from collections.abc import Iterable

import torch

from tilelab import env


class ContractError(ValueError):
    """Base class of every argument error tilelab raises."""


class InputTypeError(ContractError, TypeError):
    """An argument is not of the expected Python type."""


class ShapeError(ContractError):
    """Shapes are incompatible or a tensor has the wrong rank."""


class DTypeError(ContractError, TypeError):
    """A dtype is unsupported, or operands' dtypes disagree."""


class DeviceError(ContractError):
    """Operands live on different devices, or on one no kernel can run on."""


class AlignmentError(ContractError):
    """Data is not aligned as the requested kernel path requires."""


def require_tensor(x, name: str) -> torch.Tensor:
    if not isinstance(x, torch.Tensor):
        raise InputTypeError(f"{name} must be a torch.Tensor, got {type(x).__name__}")
    return x


def require_rank_at_least(x: torch.Tensor, name: str, rank: int) -> None:
    if x.dim() < rank:
        raise ShapeError(f"{name} must have at least {rank} dimension(s), got a {x.dim()}-dim tensor")


def require_vector(t, name: str, length: int, per: str, x: torch.Tensor) -> None:
    """A 1-D floating-point tensor of `length` values, one `per` something of x, on x's device (a bias, a norm's
    weight or statistics): any float dtype, read as float32 by the kernels."""
    require_tensor(t, name)
    if t.dim() != 1 or t.shape[0] != length:
        raise ShapeError(f"{name} must have shape ({length},), one value per {per}; got {tuple(t.shape)}")
    if not t.is_floating_point():
        raise DTypeError(f"{name} must be a floating-point tensor; got {str(t.dtype).removeprefix('torch.')}")
    if t.device != x.device:
        raise DeviceError(f"{name} is on {t.device}, x on {x.device}; they must be on the same device")


def require_choice(value, name: str, allowed: Iterable) -> None:
    allowed = tuple(allowed)
    if value not in allowed:
        options = ", ".join(repr(a) for a in allowed)
        raise ContractError(f"{name} must be one of {options}; got {value!r}")


def require_dtype(x: torch.Tensor, name: str, allowed: Iterable[torch.dtype]) -> None:
    allowed = tuple(allowed)
    if x.dtype not in allowed:
        names = ", ".join(str(d).removeprefix("torch.") for d in allowed)
        raise DTypeError(f"{name} has dtype {str(x.dtype).removeprefix('torch.')}; expected one of {names}")


def require_same_dtype(tensors: dict[str, torch.Tensor]) -> None:
    dtypes = {name: t.dtype for name, t in tensors.items()}
    if len(set(dtypes.values())) > 1:
        listed = ", ".join(f"{n}={str(d).removeprefix('torch.')}" for n, d in dtypes.items())
        raise DTypeError(f"operands must share one dtype; got {listed}")


def require_runnable_device(tensors: dict[str, torch.Tensor]) -> torch.device:
    """All tensors on one device, and a device Triton can run on here."""
    devices = {name: t.device for name, t in tensors.items()}
    if len(set(devices.values())) > 1:
        listed = ", ".join(f"{n} on {d}" for n, d in devices.items())
        raise DeviceError(f"operands must be on the same device; got {listed}")
    device = next(iter(devices.values()))
    if device.type == "cuda":
        return device
    if device.type == "cpu" and env.interpreting():
        return device
    first = next(iter(devices))
    if device.type == "cpu":
        raise DeviceError(
            f"{first} is a CPU tensor: tilelab kernels run on a CUDA GPU, or on the CPU only under "
            "Triton's interpreter (set TRITON_INTERPRET=1 before importing triton)"
        )
    raise DeviceError(f"{first} is on {device}; tilelab kernels run on CUDA devices (or the CPU interpreter)")


def broadcast_batch(a_batch: torch.Size, b_batch: torch.Size) -> torch.Size:
    """The broadcast of two batch shapes, or a ShapeError naming both."""
    try:
        return torch.broadcast_shapes(a_batch, b_batch)
    except RuntimeError:
        raise ShapeError(
            f"batch dimensions of a {tuple(a_batch)} and b {tuple(b_batch)} cannot be broadcast together"
        ) from None
