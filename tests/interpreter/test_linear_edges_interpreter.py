"""`tilelab.linear`'s checks and edges that mutation testing (thirty-second session) found untested."""

import pytest
import torch

from tests.helpers import randn
from tilelab import contracts
from tilelab.ops import matmul as matmul_op
from tilelab.ops.linear import linear


@pytest.mark.parametrize("shape", [(6, 1), (6, 2), (6, 6), ()])
def test_a_bias_of_n_rows_but_another_rank_is_a_shape_error_naming_it(shape, device, rng):
    """bias[0] of the right length is not enough: a (6, 2) bias read as 6 contiguous values would add
    bias[0, 0], bias[0, 1], bias[1, 0], ... to the columns."""
    x, weight = randn((7, 5), torch.float32, device, rng), randn((6, 5), torch.float32, device, rng)
    bias = randn(shape, torch.float32, device, rng)
    with pytest.raises(contracts.ShapeError, match=r"bias must have shape \(6,\), one value per output column"):
        linear(x, weight, bias, activation="relu")


@pytest.mark.parametrize("x_shape,n", [((0, 5), 6), ((3, 0, 5), 6), ((7, 5), 0)])
@pytest.mark.parametrize("activation", [None, "gelu"])
def test_an_empty_output_plans_and_launches_nothing(x_shape, n, activation, device, rng, monkeypatch):
    """Nothing to compute: no plan, no kernel (a GPU's TMA descriptors cannot even describe an empty matrix)."""
    def refuse(*args, **kwargs):
        raise AssertionError("an empty linear planned or launched a kernel")

    monkeypatch.setattr(matmul_op, "plan_matmul", refuse)
    monkeypatch.setattr(matmul_op, "_launch_plan", refuse)
    x = randn(x_shape, torch.float16, device, rng)
    weight, bias = randn((n, 5), torch.float16, device, rng), randn((n,), torch.float16, device, rng)
    out = linear(x, weight, bias, activation=activation)
    assert out.shape == (*x_shape[:-1], n) and out.dtype == torch.float16


def test_a_bias_on_another_device_is_a_device_error_naming_it(device, rng):
    x, weight = randn((7, 5), torch.float32, device, rng), randn((6, 5), torch.float32, device, rng)
    with pytest.raises(contracts.DeviceError, match=f"same device; got x on {x.device}, weight on {x.device}, "
                                                    "bias on meta"):
        linear(x, weight, torch.ones(6, device="meta"), activation="relu")


@pytest.mark.parametrize("path", [None, "descriptor"])
def test_a_wide_tile_is_refused_as_one_without_the_epilogue(path, device, rng):
    """The descriptor path takes a 128x192 tile for a matmul, but its kernel has no epilogue: the error says so,
    rather than asking for a power of two as if the size were wrong everywhere."""
    from tilelab import tuning

    x, weight = randn((8, 16), torch.float16, device, rng), randn((24, 16), torch.float16, device, rng)
    with pytest.raises(contracts.ContractError, match="config.block_n=192 is a wide tile, whose kernel has no "
                                                      "fused epilogue"):
        linear(x, weight, randn((24,), torch.float16, device, rng), config=tuning.WIDE_CANDIDATES[0], path=path)


@pytest.mark.parametrize("activation", [None, "gelu"])
def test_a_bias_alone_that_requires_grad_gets_its_gradient(activation, device, rng):
    """Only the bias trains (x and weight frozen, as in bias-only fine-tuning): the call must still go through
    autograd, and bias.grad is the column sums of the upstream gradient times the activation's derivative."""
    x, weight = randn((2, 9, 16), torch.float32, device, rng), randn((12, 16), torch.float32, device, rng)
    bias = randn((12,), torch.float32, device, rng).requires_grad_()
    out = linear(x, weight, bias, activation=activation, precision="ieee")
    assert out.requires_grad
    grad = randn(tuple(out.shape), torch.float32, device, rng)
    out.backward(grad)
    assert x.grad is None and weight.grad is None
    b64 = bias.detach().double().requires_grad_()
    y = torch.nn.functional.linear(x.double(), weight.double(), b64)
    (y if activation is None else torch.nn.functional.gelu(y)).backward(grad.double())
    err = (bias.grad.double() - b64.grad).norm() / b64.grad.norm()
    assert err < 1e-5, f"bias.grad: relative error {err:.2e}"

