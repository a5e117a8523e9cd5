"""bfloat16 under Triton's interpreter: refused where a kernel takes a tl.dot (Triton 3.6's interpreter computes a
bfloat16 dot about 1e10 off), computed where it does not. Found by a library user's review (thirty-second session):
the answer came back wrong, with no error."""

import pytest
import torch

import tilelab
from tests.helpers import randn


@pytest.mark.parametrize("op", ["matmul", "linear", "conv2d_bn_silu", "grouped conv2d_bn_silu"])
def test_bfloat16_on_a_dot_is_refused_on_the_interpreter_not_computed_wrong(op, device, rng):
    """Triton 3.6's interpreter computes a bfloat16 tl.dot about 1e10 off: a typed error instead of that answer.
    The depthwise direct kernel has no dot, and computes bfloat16 right there."""
    if device != "cpu":
        pytest.skip("the interpreter's limitation; on a GPU bfloat16 runs (tests/gpu)")

    x = randn((2, 8, 9, 9), torch.float32, device, rng).bfloat16()
    stats = {"running_mean": torch.zeros(8), "running_var": torch.ones(8)}
    calls = {
        "matmul": lambda: tilelab.matmul(randn((5, 7), torch.bfloat16, device, rng),
                                         randn((7, 3), torch.bfloat16, device, rng)),
        "linear": lambda: tilelab.linear(randn((5, 7), torch.bfloat16, device, rng),
                                         randn((3, 7), torch.bfloat16, device, rng)),
        "conv2d_bn_silu": lambda: tilelab.conv2d_bn_silu(x, randn((8, 8, 3, 3), torch.bfloat16, device, rng),
                                                         **stats),
        "grouped conv2d_bn_silu": lambda: tilelab.conv2d_bn_silu(
            x, randn((8, 4, 3, 3), torch.bfloat16, device, rng), groups=2, **stats),
    }
    name = "a" if op == "matmul" else "x"
    with pytest.raises(tilelab.DTypeError, match=f"{name} is bfloat16, and Triton 3.6's interpreter .* computes a "
                                                 "bfloat16 tl.dot wrongly: run bfloat16 on a GPU"):
        calls[op]()
    weight = randn((8, 1, 3, 3), torch.float32, device, rng)
    y = tilelab.conv2d_bn_silu(x, weight.bfloat16(), groups=8, **stats)  # depthwise: the direct kernel
    want = torch.nn.functional.silu(torch.nn.functional.conv2d(x.double(), weight.bfloat16().double(), groups=8)
                                    / (1 + 1e-5) ** 0.5)
    assert (y.double() - want).abs().max().item() < 0.1
