"""Input contracts: every public op checks its arguments here first.

Each failure is a typed error whose message names the argument and says what
was expected, so a wrong call never reaches a kernel (where it could crash,
hang or write out of bounds).
"""

import math
import numbers
import operator
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
    if x.layout is not torch.strided:  # sparse and other layouts have no strides for a kernel to follow
        raise InputTypeError(f"{name} must be a dense (strided) tensor; got layout {x.layout}. Pass {name}.to_dense().")
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
    """value is one of `allowed`, of its type too: `in` alone would let 1 stand for True, or 1.0 for 1."""
    allowed = tuple(allowed)
    if not any(value is a or (type(value) is type(a) and value == a) for a in allowed):
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
        if env.triton_imported_for_a_gpu():
            raise DeviceError(f"{next(iter(devices))} is a CPU tensor and TRITON_INTERPRET=1, but triton was imported "
                              "before that was set, so its own functions are built for a GPU: set TRITON_INTERPRET=1 "
                              "before importing triton (first thing in the script, or in the shell)")
        return device
    first = next(iter(devices))
    if device.type == "cpu":
        raise DeviceError(
            f"{first} is a CPU tensor: tilelab kernels run on a CUDA GPU, or on the CPU only under "
            "Triton's interpreter (set TRITON_INTERPRET=1 before importing triton)"
        )
    raise DeviceError(f"{first} is on {device}; tilelab kernels run on CUDA devices (or the CPU interpreter)")


def require_dot_dtype_runs_here(t: torch.Tensor, name: str) -> None:
    """Refuse bfloat16 operands of a tl.dot under Triton's interpreter: Triton 3.6's interpreter computes a bfloat16
    dot wrongly (results about 1e10 off), and a wrong answer without an error is the worst outcome."""
    if t.dtype == torch.bfloat16 and env.interpreting():
        raise DTypeError(f"{name} is bfloat16, and Triton 3.6's interpreter (TRITON_INTERPRET=1, how kernels run "
                         "without a GPU) computes a bfloat16 tl.dot wrongly: run bfloat16 on a GPU, or pass float16 "
                         "or float32 here")


def broadcast_batch(a_batch: torch.Size, b_batch: torch.Size) -> torch.Size:
    """The broadcast of two batch shapes, or a ShapeError naming both."""
    try:
        return torch.broadcast_shapes(a_batch, b_batch)
    except RuntimeError:
        raise ShapeError(
            f"batch dimensions of a {tuple(a_batch)} and b {tuple(b_batch)} cannot be broadcast together"
        ) from None


def as_int(value, name: str, low: int | None = None, high: int | None = None) -> int:
    """value as a Python int: any integer torch accepts (a numpy or 0-d tensor integer too) but a bool or a
    float, within [low, high] where given. Kernels get the Python int, never the caller's object."""
    try:
        if isinstance(value, bool):
            raise TypeError
        number = operator.index(value)
    except TypeError:
        raise InputTypeError(f"{name} must be an int; got {type(value).__name__} {value!r}") from None
    if (low is not None and number < low) or (high is not None and number > high):
        bound = f"from {low} to {high}" if low is not None and high is not None else (
            f"at least {low}" if low is not None else f"at most {high}")
        raise ContractError(f"{name} must be an int {bound}; got {number}")
    return number


def as_finite_nonnegative(value, name: str) -> float:
    """value as a Python float, finite and >= 0 (an epsilon): any real number but a bool, numpy's included."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InputTypeError(f"{name} must be a real number; got {type(value).__name__} {value!r}")
    number = float(value)
    if not number >= 0 or math.isinf(number):
        raise ContractError(f"{name} must be a finite number >= 0; got {value!r}")
    return number


def require_bool(value, name: str) -> None:
    if not isinstance(value, bool):
        raise InputTypeError(f"{name} must be True or False; got {type(value).__name__} {value!r}")


WARP_COUNTS = (1, 2, 4, 8, 16)


def require_config_int(config, field: str, low: int = 1, high: int | None = None) -> int:
    """A config field that reaches a kernel as a compile-time constant: a plain int (a float, a bool or a numpy
    integer would compile another kernel, or none), from low to high."""
    value = getattr(config, field)
    if type(value) is not int or value < low or (high is not None and value > high):
        bound = f"from {low} to {high}" if high is not None else f">= {low}"
        raise ContractError(f"config.{field} must be an int {bound}; got {value!r}")
    return value


def require_launch_counts(config) -> None:
    """A tile config's counts besides its block sizes: GROUP_M (the tile order divides by it; 0 or less sends
    programs to tiles that do not exist, writing out of bounds), the pipeline's stages and the warps (a power
    of two up to 16, Triton's rule)."""
    require_config_int(config, "group_m")
    require_config_int(config, "num_stages")
    if type(config.num_warps) is not int or config.num_warps not in WARP_COUNTS:
        raise ContractError(f"config.num_warps must be one of {', '.join(map(str, WARP_COUNTS))}; "
                            f"got {config.num_warps!r}")


def as_shapes(shapes, name: str, lengths: tuple[int, ...]) -> list[tuple[int, ...]]:
    """A list of shapes, each `lengths[i]` ints >= 0 for some i. One bare shape is refused, not read as several
    one-number shapes."""
    if isinstance(shapes, (str, bytes, torch.Tensor)) or not isinstance(shapes, Iterable):
        raise InputTypeError(f"{name} must be a list of shapes such as [(M, N, K)]; got {type(shapes).__name__}")
    shapes = list(shapes)
    counts = " or ".join(map(str, lengths))
    out = []
    for i, shape in enumerate(shapes):
        if not isinstance(shape, Iterable) or isinstance(shape, (str, bytes)):
            hint = ": wrap one shape in a list" if i == 0 else ""
            raise InputTypeError(f"{name}[{i}] must be a shape of {counts} ints; got {shape!r}{hint}")
        dims = tuple(as_int(d, f"{name}[{i}]", low=0) for d in shape)
        if len(dims) not in lengths:
            raise ShapeError(f"{name}[{i}] must have {counts} sizes; got {dims}")
        out.append(dims)
    return out


def as_choices(values, name: str, allowed: Iterable) -> tuple:
    """One allowed value, or an iterable of them, as a tuple (a bare string, dtype or bool is one value)."""
    if values is None or isinstance(values, (str, bool, torch.dtype)) or not isinstance(values, Iterable):
        values = (values,)
    values = tuple(values)
    for value in values:
        require_choice(value, name, allowed)
    return values
