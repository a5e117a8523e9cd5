"""tilelab: learn, trust and measure GPU matrix multiplication written in Triton.

Importing tilelab does not import triton: the ops load on first use. That
lets a program (or `python -m tilelab.demo`) decide to switch on Triton's
CPU interpreter (TRITON_INTERPRET=1) after `import tilelab`, since the
interpreter must be chosen before triton is first imported.
"""

import importlib

from tilelab.contracts import (
    AlignmentError,
    ContractError,
    DeviceError,
    DTypeError,
    InputTypeError,
    ShapeError,
)

__version__ = "0.1.0"

_LAZY = {
    "matmul": ("tilelab.ops.matmul", "matmul"),
    "scaled_matmul": ("tilelab.ops.scaled_matmul", "scaled_matmul"),
    "conv2d_bn_silu": ("tilelab.ops.conv", "conv2d_bn_silu"),
    "softmax": ("tilelab.ops.rows", "softmax"),
    "linear": ("tilelab.ops.linear", "linear"),
    "rmsnorm": ("tilelab.ops.rows", "rmsnorm"),
    "pretune": ("tilelab.ops.matmul", "pretune"),
    "pretune_scaled": ("tilelab.ops.scaled_matmul", "pretune_scaled"),
    "Config": ("tilelab.tuning", "Config"),
    "ConvConfig": ("tilelab.ops.conv", "ConvConfig"),
    "empty_aligned": ("tilelab.alignment", "empty_aligned"),
    "to_aligned": ("tilelab.alignment", "to_aligned"),
    "rows_aligned": ("tilelab.alignment", "rows_aligned"),
}

__all__ = [
    "AlignmentError",
    "Config",
    "ContractError",
    "ConvConfig",
    "conv2d_bn_silu",
    "DTypeError",
    "DeviceError",
    "InputTypeError",
    "ShapeError",
    "empty_aligned",
    "linear",
    "matmul",
    "pretune",
    "pretune_scaled",
    "rmsnorm",
    "rows_aligned",
    "scaled_matmul",
    "softmax",
    "to_aligned",
]


def __getattr__(name: str):
    if name in _LAZY:
        module, attribute = _LAZY[name]
        value = getattr(importlib.import_module(module), attribute)
        globals()[name] = value  # later lookups skip this function
        return value
    raise AttributeError(f"module 'tilelab' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
