"""Autograd and torch.library registration of tilelab.matmul (tilelab/library.py)."""

import pytest
import torch

import tilelab
from tests.helpers import randn
from tilelab.reference import relative_error


def _float64_grads(a, b, grad):
    a64 = a.detach().double().requires_grad_()
    b64 = b.detach().double().requires_grad_()
    torch.matmul(a64, b64).backward(grad.double())
    return a64.grad, b64.grad


@pytest.mark.parametrize("a_shape,b_shape", [
    ((5, 7), (7, 3)), ((33, 40), (40, 17)), ((7,), (7, 3)), ((2, 5, 7), (7,)), ((7,), (7,)),
    ((3, 1, 5, 7), (4, 7, 6)),  # broadcast batch: grads are summed back to each operand's shape
    ((2, 16, 32), (32, 24)),  # shared B folded into rows in the forward pass
])
def test_gradients_match_float64(a_shape, b_shape, device, rng):
    a = randn(a_shape, torch.float32, device, rng).requires_grad_()
    b = randn(b_shape, torch.float32, device, rng).requires_grad_()
    out = tilelab.matmul(a, b, precision="ieee")
    grad = randn(out.shape, torch.float32, device, rng)
    out.backward(grad)
    ref_a, ref_b = _float64_grads(a, b, grad)
    assert a.grad.shape == a.shape and b.grad.shape == b.shape
    assert relative_error(a.grad, ref_a) < 1e-5
    assert relative_error(b.grad, ref_b) < 1e-5


def test_only_the_input_that_requires_grad_gets_one(device, rng):
    a = randn((9, 12), torch.float16, device, rng).requires_grad_()
    b = randn((12, 5), torch.float16, device, rng)
    out = tilelab.matmul(a, b, out_dtype=torch.float32)
    assert out.dtype == torch.float32 and out.requires_grad
    out.sum().backward()
    assert a.grad.dtype == torch.float16 and b.grad is None


def test_no_grad_takes_the_plain_path(device, rng):
    a = randn((4, 4), torch.float32, device, rng).requires_grad_()
    with torch.no_grad():
        assert not tilelab.matmul(a, a).requires_grad


def test_explicit_config_objects_are_refused_with_grad(device, rng):
    a = randn((4, 4), torch.float32, device, rng).requires_grad_()
    with pytest.raises(tilelab.ContractError, match="config must be a name"):
        tilelab.matmul(a, a, config=tilelab.Config(16, 16, 16))


def test_custom_op_passes_opcheck(device, rng):
    import tilelab.library  # noqa: F401

    a = randn((6, 8), torch.float32, device, rng).requires_grad_()
    b = randn((8, 10), torch.float32, device, rng).requires_grad_()
    torch.library.opcheck(torch.ops.tilelab.matmul.default, (a, b, None, "ieee", None, None),
                          test_utils=("test_schema", "test_faketensor", "test_autograd_registration",
                                      "test_aot_dispatch_dynamic"))


def test_custom_op_traces_under_torch_compile(device, rng):
    import tilelab.library  # noqa: F401

    @torch.compile(backend="aot_eager", fullgraph=True)
    def f(a, b):
        return torch.ops.tilelab.matmul(a, b, None, "ieee", None, None).relu()

    a = randn((6, 8), torch.float32, device, rng)
    b = randn((8, 10), torch.float32, device, rng)
    assert relative_error(f(a, b), torch.matmul(a.double(), b.double()).relu()) < 1e-5


@pytest.mark.parametrize("op", ["tilelab.matmul", "torch.ops.tilelab.matmul"])
def test_training_under_torch_compile_gets_float64_s_gradients(op, device, rng):
    """The backward runs the op itself, which torch.compile can trace; tilelab.ops.matmul reads data pointers,
    which a traced (fake) tensor has none of."""
    import tilelab.library  # noqa: F401

    matmul = tilelab.matmul if op == "tilelab.matmul" else torch.ops.tilelab.matmul

    @torch.compile(backend="aot_eager")
    def f(a, b):
        return matmul(a, b, precision="ieee").relu()

    a = randn((6, 8), torch.float32, device, rng).requires_grad_()
    b = randn((8, 10), torch.float32, device, rng).requires_grad_()
    weights = randn((6, 10), torch.float32, device, rng)
    (f(a, b) * weights).sum().backward()
    a64, b64 = a.detach().double().requires_grad_(), b.detach().double().requires_grad_()
    ((a64 @ b64).relu() * weights.double()).sum().backward()
    assert relative_error(a.grad, a64.grad) < 1e-5 and relative_error(b.grad, b64.grad) < 1e-5


@pytest.mark.parametrize("path", ["pointer", "descriptor", "persistent", "splitk"])
def test_a_forced_path_s_backward_takes_an_expanded_gradient(path, device, rng):
    """.sum()'s gradient is one value expanded (stride 0), which a TMA path cannot read as it is."""
    a = randn((16, 32), torch.float32, device, rng).requires_grad_()
    b = randn((32, 16), torch.float32, device, rng).requires_grad_()
    tilelab.matmul(a, b, path=path, precision="ieee").sum().backward()
    ones = torch.ones(16, 16, dtype=torch.float64, device=device)
    assert relative_error(a.grad, ones @ b.detach().double().T) < 1e-5
    assert relative_error(b.grad, a.detach().double().T @ ones) < 1e-5


def _compiled_cases(device, rng):
    """(public call, float64 reference) pairs for each public op, small shapes."""
    a, b = randn((8, 16), torch.float32, device, rng), randn((16, 8), torch.float32, device, rng)
    residual, bias = randn((8, 16), torch.float32, device, rng), randn((8,), torch.float32, device, rng)
    x, w = randn((2, 4, 7, 7), torch.float32, device, rng), randn((4, 4, 3, 3), torch.float32, device, rng)
    stats = {"running_mean": torch.zeros(4, device=device), "running_var": torch.ones(4, device=device)}
    f = torch.nn.functional
    d = torch.float64
    return {
        "matmul": (lambda: tilelab.matmul(a, b, precision="ieee").relu(), (a.to(d) @ b.to(d)).relu()),
        "softmax": (lambda: tilelab.softmax(a) * 2, torch.softmax(a.to(d), -1) * 2),
        "rmsnorm": (lambda: tilelab.rmsnorm(a), f.rms_norm(a.to(d), (16,), eps=1e-6)),
        "residual_rmsnorm": (lambda: tilelab.rmsnorm(a, residual=residual)[0],
                             f.rms_norm((a + residual).to(d), (16,), eps=1e-6)),
        "linear": (lambda: tilelab.linear(a, b.T, bias, activation="gelu", precision="ieee"),
                   f.gelu(f.linear(a.to(d), b.T.to(d), bias.to(d)))),
        "conv2d_bn_silu": (lambda: tilelab.conv2d_bn_silu(x, w, precision="ieee", **stats),
                           f.silu(f.conv2d(x.to(d), w.to(d)) / (1 + 1e-5) ** 0.5)),
    }


@pytest.mark.parametrize("op", ["matmul", "softmax", "rmsnorm", "residual_rmsnorm", "linear", "conv2d_bn_silu"])
def test_the_public_functions_compile_in_one_graph(op, device, rng):
    """Under torch.compile each public function takes its torch.library op (linear: the matmul op, then its
    epilogue in torch), whose fake implementation traces: their own code reads data pointers, which a traced
    tensor has none of (fullgraph=True failed with 'Unsupported' before; a library user's review)."""
    call, want = _compiled_cases(device, rng)[op]
    torch._dynamo.reset()
    got = torch.compile(call, fullgraph=True, backend="aot_eager")()
    assert relative_error(got, want) < 1e-5
