"""Every bad argument gets a typed error that names it; nothing reaches a kernel."""

import pytest
import torch

import tilelab
from tilelab import contracts


def t(*shape, dtype=torch.float32):
    return torch.randn(shape).to(dtype)


@pytest.mark.parametrize("a,b,name", [([[1.0]], t(1, 1), "a"), (t(1, 1), 3.0, "b"), (None, t(2, 2), "a")])
def test_non_tensor_inputs(a, b, name):
    with pytest.raises(tilelab.InputTypeError, match=f"^{name} must be a torch.Tensor"):
        tilelab.matmul(a, b)


def test_zero_dim_input():
    with pytest.raises(tilelab.ShapeError, match="a must have at least 1 dimension"):
        tilelab.matmul(torch.tensor(2.0), t(2, 2))
    with pytest.raises(tilelab.ShapeError, match="b must have at least 1 dimension"):
        tilelab.matmul(t(2, 2), torch.tensor(2.0))


@pytest.mark.parametrize("a_shape,b_shape", [((2, 3), (4, 5)), ((3,), (4,)), ((5, 3), (2,)), ((2, 3, 4), (2, 5, 6))])
def test_inner_dimension_mismatch(a_shape, b_shape):
    with pytest.raises(tilelab.ShapeError, match="inner dimensions differ"):
        tilelab.matmul(t(*a_shape), t(*b_shape))


def test_batch_dims_that_do_not_broadcast():
    with pytest.raises(tilelab.ShapeError, match=r"batch dimensions of a \(2,\) and b \(3,\)"):
        tilelab.matmul(t(2, 4, 5), t(3, 5, 6))


@pytest.mark.parametrize("dtype", [torch.float64, torch.int32, torch.int64, torch.complex64, torch.bool, torch.uint8])
def test_unsupported_dtypes(dtype):
    a = torch.ones(2, 2, dtype=dtype)
    with pytest.raises(tilelab.DTypeError, match="a has dtype"):
        tilelab.matmul(a, a)


def test_mixed_dtypes():
    with pytest.raises(tilelab.DTypeError, match="a=float16, b=float32"):
        tilelab.matmul(t(2, 2, dtype=torch.float16), t(2, 2))


@pytest.mark.parametrize("kwargs,match", [
    ({"precision": "fast"}, "precision must be one of 'tf32', 'tf32x3', 'ieee'"),
    ({"path": "tma"}, "path must be one of 'pointer', 'descriptor'"),
    ({"config": "huge"}, "config must be one of"),
    ({"config": 7}, "config must be None, a name or a tilelab.tuning.Config"),
    ({"out_dtype": "float16"}, "out_dtype must be a torch.dtype"),
    ({"out_dtype": torch.int8}, "out_dtype must be float16, bfloat16 or float32"),
])
def test_unknown_options(kwargs, match):
    with pytest.raises(tilelab.ContractError, match=match):
        tilelab.matmul(t(2, 2), t(2, 2), **kwargs)


def test_precision_only_for_float32():
    a = t(2, 2, dtype=torch.float16)
    with pytest.raises(tilelab.ContractError, match="applies to float32 inputs only"):
        tilelab.matmul(a, a, precision="ieee")


def test_cpu_tensors_without_interpreter(monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "0")
    with pytest.raises(tilelab.DeviceError, match="a is a CPU tensor.*TRITON_INTERPRET=1"):
        tilelab.matmul(t(2, 2), t(2, 2))


def test_mixed_devices():
    meta = torch.empty(2, 2, device="meta")
    with pytest.raises(tilelab.DeviceError, match="same device; got a on cpu, b on meta"):
        tilelab.matmul(t(2, 2), meta)


def test_unsupported_device_type():
    meta = torch.empty(2, 2, device="meta")
    with pytest.raises(tilelab.DeviceError, match="a is on meta"):
        tilelab.matmul(meta, meta)


def test_errors_are_value_or_type_errors():
    # Callers that catch the builtin exceptions keep working.
    assert issubclass(tilelab.ShapeError, ValueError)
    assert issubclass(tilelab.DTypeError, TypeError)
    assert issubclass(tilelab.InputTypeError, TypeError)
    assert issubclass(contracts.AlignmentError, contracts.ContractError)
