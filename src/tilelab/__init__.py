"""tilelab: learn, trust and measure GPU matrix multiplication written in Triton."""

from tilelab.contracts import (
    AlignmentError,
    ContractError,
    DeviceError,
    DTypeError,
    InputTypeError,
    ShapeError,
)
from tilelab.ops.matmul import matmul
from tilelab.tuning import Config

__version__ = "0.1.0"

__all__ = [
    "AlignmentError",
    "Config",
    "ContractError",
    "DTypeError",
    "DeviceError",
    "InputTypeError",
    "ShapeError",
    "matmul",
]
