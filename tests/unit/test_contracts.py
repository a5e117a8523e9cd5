"""Every bad argument gets a typed error that names it; nothing reaches a kernel."""

import numpy as np
import pytest
import torch

import tilelab
from tilelab import contracts


def t(*shape, dtype=torch.float32, device="cpu"):
    return torch.randn(shape, device=device).to(dtype)


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
def test_inner_dimension_mismatch(a_shape, b_shape, device):
    with pytest.raises(tilelab.ShapeError, match="inner dimensions differ"):
        tilelab.matmul(t(*a_shape, device=device), t(*b_shape, device=device))


def test_batch_dims_that_do_not_broadcast(device):
    with pytest.raises(tilelab.ShapeError, match=r"batch dimensions of a \(2,\) and b \(3,\)"):
        tilelab.matmul(t(2, 4, 5, device=device), t(3, 5, 6, device=device))


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
def test_unknown_options(kwargs, match, device):
    with pytest.raises(tilelab.ContractError, match=match):
        tilelab.matmul(t(2, 2, device=device), t(2, 2, device=device), **kwargs)


def test_precision_only_for_float32(device):
    a = t(2, 2, dtype=torch.float16, device=device)
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


# -- configs: every count a kernel takes as a constant is checked, not only the block sizes ----------------------

def _hopper(**fields):
    from tilelab.ops.matmul_hopper import HopperConfig

    return HopperConfig(**{"block_m": 16, "block_n": 16, "block_k": 32, "num_warps": 4, "num_stages": 1,
                           "epilogue_subtile": False, **fields})


BAD_COUNTS = [("group_m", 0), ("group_m", -3), ("group_m", 1.5), ("group_m", True), ("num_warps", 3),
              ("num_warps", 0), ("num_warps", 4.0), ("num_stages", 0), ("num_stages", -1), ("block_m", 16.0)]


@pytest.mark.parametrize("field,value", BAD_COUNTS)
@pytest.mark.parametrize("path", [None, "pointer", "descriptor", "persistent", "splitk"])
def test_matmul_config_counts(field, value, path, device):
    # group_m <= 0 once sent programs to tiles that do not exist: garbage, then a corrupted heap.
    config = tilelab.Config(**{"block_m": 16, "block_n": 16, "block_k": 16, field: value})
    a = torch.randn(40, 24, device=device)
    with pytest.raises(tilelab.ContractError, match=f"config.{field} must be"):
        tilelab.matmul(a, a.T, config=config, path=path)


@pytest.mark.parametrize("field,value", BAD_COUNTS[:4])
def test_linear_and_conv_config_counts(field, value, device):
    config = tilelab.Config(**{"block_m": 16, "block_n": 16, "block_k": 16, field: value})
    x = torch.randn(8, 24, device=device)
    with pytest.raises(tilelab.ContractError, match=f"config.{field} must be"):
        tilelab.linear(x, torch.randn(16, 24, device=device), torch.randn(16, device=device), activation="relu",
                       config=config)
    image, weight, stats = torch.randn(1, 4, 5, 5, device=device), torch.randn(4, 4, 3, 3, device=device), \
        torch.rand(4, device=device) + 0.5
    with pytest.raises(tilelab.ContractError, match=f"config.{field} must be"):
        tilelab.conv2d_bn_silu(image, weight, running_mean=stats, running_var=stats, config=config)


@pytest.mark.parametrize("split_k", [0, -2, 1.5, 65])
def test_split_k_slices(split_k, device):
    a = torch.randn(16, 64, device=device)
    with pytest.raises(tilelab.ContractError, match="config.split_k must be an int from 1 to 64"):
        tilelab.matmul(a, a.T, path="splitk", config=_hopper(split_k=split_k))
    with pytest.raises(tilelab.ContractError, match="config.split_k must be an int from 1 to 64"):
        tilelab.linear(a, a, torch.randn(16, device=device), path="splitk", config=_hopper(split_k=split_k))


def _fp8(rows: int, cols: int, device) -> torch.Tensor:
    return torch.randn(rows, cols, device=device).to(torch.float8_e4m3fn)


@pytest.mark.parametrize("config,error,match", [
    ("fixed", tilelab.InputTypeError, "config must be None or a tilelab.ops.matmul_hopper.HopperConfig"),
    ({"block_m": 32}, tilelab.InputTypeError, "HopperConfig"),
    (tilelab.Config(32, 32, 32), tilelab.InputTypeError, "HopperConfig"),
    (_hopper(block_m=48), tilelab.ContractError, "config.block_m must be a power of two, at least 16"),
    (_hopper(block_k=16), tilelab.ContractError, "config.block_k must be a power of two, at least 32"),
    (_hopper(group_m=0), tilelab.ContractError, "config.group_m must be an int >= 1"),
    (_hopper(num_warps=6), tilelab.ContractError, "config.num_warps must be one of"),
    (_hopper(split_k=2), tilelab.ContractError, "no split-K"),
    (_hopper(flatten=1), tilelab.ContractError, "config.flatten must be True or False"),
])
def test_scaled_matmul_config(config, error, match, device):
    a, bt, one = _fp8(32, 32, device), _fp8(32, 32, device), torch.ones((), device=device)
    with pytest.raises(error, match=match):
        tilelab.scaled_matmul(a, bt.t(), one, one, out_dtype=torch.float32, config=config)


def test_scaled_matmul_rows_that_overlap(device):
    one = torch.ones((), device=device)
    a = _fp8(1, 32, device).expand(32, 32)  # every row the same memory: no descriptor describes it
    with pytest.raises(contracts.AlignmentError, match=r"a's rows overlap .* a.contiguous\(\)"):
        tilelab.scaled_matmul(a, _fp8(32, 32, device).t(), one, one)
    bt = _fp8(1, 32, device).expand(32, 32)
    with pytest.raises(contracts.AlignmentError, match=r"b's rows overlap .* b.t\(\).contiguous\(\).t\(\)"):
        tilelab.scaled_matmul(_fp8(32, 32, device), bt.t(), one, one)


# -- layouts, op options, tuning arguments ----------------------------------------------------------------------

def test_sparse_tensors_are_refused_by_name(device):
    dense = torch.randn(4, 4, device=device)
    sparse = dense.to_sparse()
    calls = {
        "a": lambda: tilelab.matmul(sparse, dense),
        "weight": lambda: tilelab.linear(dense, sparse),
        "x": lambda: tilelab.softmax(sparse),
    }
    for name, call in calls.items():
        with pytest.raises(tilelab.InputTypeError, match=f"{name} must be a dense .strided. tensor; got layout "
                                                          "torch.sparse_coo"):
            call()
    with pytest.raises(tilelab.InputTypeError, match="x must be a dense"):
        tilelab.rmsnorm(sparse)
    stats, weight = torch.ones(4, device=device), torch.randn(4, 4, 3, 3, device=device)
    with pytest.raises(tilelab.InputTypeError, match="x must be a dense"):
        tilelab.conv2d_bn_silu(torch.randn(1, 4, 5, 5, device=device).to_sparse(), weight, running_mean=stats,
                               running_var=stats)
    with pytest.raises(tilelab.InputTypeError, match="must be a dense"):
        tilelab.to_aligned(sparse)


@pytest.mark.parametrize("out_dtype", ["float64", "half"])
def test_custom_op_out_dtype(out_dtype, device):
    import tilelab.library  # noqa: F401  registers the ops

    a = torch.randn(4, 4, device=device)
    with pytest.raises(tilelab.DTypeError, match=f"out_dtype must be one of None, 'float16'.*got '{out_dtype}'"):
        torch.ops.tilelab.matmul(a, a, out_dtype)


@pytest.mark.parametrize("kwargs,error,match", [
    ({"shapes": (16, 16, 16)}, tilelab.InputTypeError, r"shapes\[0\] must be a shape of 3 or 4 ints.*wrap one shape"),
    ({"shapes": [(16, 16)]}, tilelab.ShapeError, r"shapes\[0\] must have 3 or 4 sizes; got \(16, 16\)"),
    ({"shapes": [(-1, 16, 16)]}, tilelab.ContractError, r"shapes\[0\] must be an int at least 0; got -1"),
    ({"shapes": [(16, 16.5, 16)]}, tilelab.InputTypeError, r"shapes\[0\] must be an int"),
    ({"shapes": 16}, tilelab.InputTypeError, "shapes must be a list of shapes"),
    ({"shapes": [(16, 16, 16)], "dtypes": [torch.int32]}, tilelab.ContractError, "dtypes must be one of"),
    ({"shapes": [(16, 16, 16)], "paths": ["nonsense"]}, tilelab.ContractError, "paths must be one of None, 'pointer'"),
])
def test_pretune_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        tilelab.pretune(**kwargs)


@pytest.mark.parametrize("kwargs,error,match", [
    ({"shapes": [(16, 16)]}, tilelab.ShapeError, r"shapes\[0\] must have 3 sizes"),
    ({"shapes": [(16, 16, 16)], "use_fast_accum": 1}, tilelab.ContractError,
     "use_fast_accum must be one of True, False; got 1"),
])
def test_pretune_scaled_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        tilelab.pretune_scaled(**kwargs)


@pytest.mark.parametrize("silu", [None, 0, "yes"])
def test_conv_silu_is_a_bool(silu, device):
    stats = torch.rand(4, device=device) + 0.5
    with pytest.raises(tilelab.InputTypeError, match="silu must be True or False"):
        tilelab.conv2d_bn_silu(torch.randn(1, 4, 5, 5, device=device), torch.randn(4, 4, 3, 3, device=device),
                               running_mean=stats, running_var=stats, silu=silu)


def test_residual_of_another_dtype_is_a_dtype_error(device):
    x = torch.randn(3, 8, device=device)
    with pytest.raises(tilelab.DTypeError, match="x=float16, residual=float32"):
        tilelab.rmsnorm(x.half(), residual=x)


def test_numpy_scalars_count_as_numbers(device):
    # torch takes numpy's integers and floats wherever it takes Python's; so does tilelab.
    x = torch.randn(3, 8, device=device)
    torch.testing.assert_close(tilelab.softmax(x, np.int64(1)), tilelab.softmax(x, 1), rtol=0, atol=0)
    torch.testing.assert_close(tilelab.rmsnorm(x, eps=np.float32(1e-5)), tilelab.rmsnorm(x, eps=1e-5))
    image, weight = torch.randn(1, 4, 6, 6, device=device), torch.randn(4, 2, 3, 3, device=device)
    stats = torch.rand(4, device=device) + 0.5
    numpy_args = tilelab.conv2d_bn_silu(image, weight, running_mean=stats, running_var=stats, eps=np.float64(1e-3),
                                        stride=np.int64(2), padding=(np.int32(1), 1), groups=np.int64(2))
    python_args = tilelab.conv2d_bn_silu(image, weight, running_mean=stats, running_var=stats, eps=1e-3, stride=2,
                                         padding=1, groups=2)
    torch.testing.assert_close(numpy_args, python_args, rtol=0, atol=0)
    assert tilelab.empty_aligned(np.int64(3), 5).shape == (3, 5)
    with pytest.raises(tilelab.InputTypeError, match="dim must be an int; got float 1.0"):
        tilelab.softmax(x, 1.0)
    with pytest.raises(tilelab.InputTypeError, match="eps must be a real number; got str"):
        tilelab.rmsnorm(x, eps="1e-5")


def test_a_choice_is_of_the_allowed_type_too():
    contracts.require_choice("tf32", "precision", ("tf32", "ieee"))
    contracts.require_choice(None, "path", (None, "pointer"))
    for value, allowed in ((1, (True, False)), (1.0, (1, 2)), (0, (None, False))):
        with pytest.raises(tilelab.ContractError, match=f"must be one of .*; got {value!r}"):
            contracts.require_choice(value, "x", allowed)
