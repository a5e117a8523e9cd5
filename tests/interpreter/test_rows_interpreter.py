"""tilelab.softmax and tilelab.rmsnorm against float64 (on the interpreter without a GPU, else on it)."""

import pytest
import torch
import triton

import tilelab
from tests.helpers import randn
from tilelab.ops import rows as rows_op
from tilelab.reference import relative_error, rmsnorm_reference, softmax_reference, tolerance

# 1 and 7 columns, a ragged block, exactly one block, and rows longer than one block (two passes).
COLUMNS = [1, 7, 65, 127, 256, rows_op.MAX_BLOCK + 37]
DTYPES = [torch.float32, torch.float16] + ([torch.bfloat16] if torch.cuda.is_available() else [])


@pytest.fixture
def small_blocks(monkeypatch):
    """Blocks of 16 columns, so the interpreter exercises the two-pass path on short rows too."""
    monkeypatch.setattr(rows_op, "MAX_BLOCK", 16)


def assert_close(out, ref, dtype, label=""):
    assert out.dtype == dtype and tuple(out.shape) == tuple(ref.shape), label
    err = relative_error(out, ref)
    assert err <= tolerance(dtype, "ieee"), f"{label}: relative error {err:.2e}"


def scaled(shape, dtype, device, rng, scale=4.0):
    # Spread wide enough that exp() differs a lot across a row: a missing max-shift or a wrong sum shows.
    return (randn(shape, torch.float32, device, rng) * scale).to(dtype)


@pytest.mark.parametrize("cols", COLUMNS)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_softmax_matches_float64(cols, dtype, device, rng):
    x = scaled((5, cols), dtype, device, rng)
    assert_close(tilelab.softmax(x), softmax_reference(x), dtype, f"{cols} columns")


@pytest.mark.parametrize("cols", [1, 15, 16, 17, 100])
def test_softmax_two_passes(cols, device, rng, small_blocks):
    x = scaled((3, cols), torch.float32, device, rng, scale=30.0)
    x[0, -1] = 80.0  # the maximum arrives late: earlier chunks' sums must be rescaled
    assert_close(tilelab.softmax(x), softmax_reference(x), torch.float32, f"{cols} columns in 16-wide blocks")


@pytest.mark.parametrize("dim", [0, 1, -1, 2])
def test_softmax_any_dim_and_strides(dim, device, rng):
    x = scaled((4, 9, 6), torch.float32, device, rng)
    assert_close(tilelab.softmax(x, dim), softmax_reference(x, dim), torch.float32, f"dim {dim}")
    sliced = scaled((4, 18, 12), torch.float32, device, rng)[:, ::2, 1::2]
    assert_close(tilelab.softmax(sliced, dim), softmax_reference(sliced, dim), torch.float32, f"view, dim {dim}")


@pytest.mark.parametrize("n_rows", [1, 7, 65, 127])
def test_several_rows_per_program_with_a_ragged_last_program(n_rows, device, rng, monkeypatch):
    """Tiles of 64 elements: 8 rows of 7 per program, so 127 rows leave the last program one spare row (which
    re-reads the last row and must not be stored)."""
    monkeypatch.setattr(rows_op, "TILE_ELEMENTS", 64)
    assert rows_op.plan_rows(n_rows, 7, 4).rows == min(8, triton.next_power_of_2(n_rows))
    x = scaled((n_rows, 7), torch.float32, device, rng)
    assert_close(tilelab.softmax(x), softmax_reference(x), torch.float32, f"softmax, {n_rows} rows")
    weight = randn((7,), torch.float32, device, rng)
    residual = randn((n_rows, 7), torch.float32, device, rng)
    y, h = tilelab.rmsnorm(x, weight, residual=residual)
    assert_close(h, x.double().cpu() + residual.double().cpu(), torch.float32, "the sum")
    assert_close(y, rmsnorm_reference(x, weight, residual=residual), torch.float32, f"rmsnorm, {n_rows} rows")


@pytest.mark.parametrize("row_stride", [40, 44, 41])
def test_aligned_and_unaligned_row_strides(row_stride, device, rng):
    """Rows of 40 float16 values in rows of 40, 44 and 41: ALIGN 8, 4 and 1 (`plan_rows`), the same results."""
    wide = scaled((9, row_stride), torch.float16, device, rng)
    x = wide[:, :40]
    assert rows_op.plan_rows(9, 40, 2, (row_stride, 40)).align == {40: 8, 44: 4, 41: 1}[row_stride]
    assert_close(tilelab.softmax(x), softmax_reference(x), torch.float16, f"softmax, stride {row_stride}")
    assert_close(tilelab.rmsnorm(x), rmsnorm_reference(x), torch.float16, f"rmsnorm, stride {row_stride}")


@pytest.mark.filterwarnings("ignore:invalid value encountered")  # the interpreter's 0 / 0, and -inf - -inf
def test_softmax_two_passes_with_minus_infinity(device, rng, small_blocks):
    """-inf where a lane has seen nothing larger (a masked attention logit): the online sum must add 0, not
    exp(-inf - -inf) = NaN. Rows: -inf first; a whole later block of -inf; the first block all -inf; all -inf."""
    x = scaled((4, 40), torch.float32, device, rng)
    x[0, 0] = -float("inf")
    x[1, 16:32] = -float("inf")
    x[2, :17] = -float("inf")
    x[3] = -float("inf")
    y, want = tilelab.softmax(x).cpu(), torch.softmax(x.cpu().double(), -1)
    assert not torch.isnan(y[:3]).any() and torch.isnan(y[3]).all() and torch.isnan(want[3]).all()
    assert relative_error(y[:3], want[:3]) < 1e-6


@pytest.mark.filterwarnings("ignore:invalid value encountered in divide")  # the interpreter's 0 / 0
def test_an_all_minus_infinity_row_is_nan_as_in_torch(device):
    x = torch.tensor([[1.0, 2.0], [-float("inf"), -float("inf")], [0.0, -float("inf")]], device=device)
    y = tilelab.softmax(x).cpu()
    assert relative_error(y[0], torch.softmax(x[0].cpu().double(), -1)) < 1e-6
    assert torch.isnan(y[1]).all() and torch.isnan(torch.softmax(x[1].cpu(), -1)).all()
    assert y[2].tolist() == [1.0, 0.0]


def test_softmax_edges(device, rng):
    assert tilelab.softmax(torch.empty(0, 5, device=device)).shape == (0, 5)
    assert tilelab.softmax(torch.empty(3, 0, device=device)).shape == (3, 0)
    one = tilelab.softmax(torch.tensor(2.5, device=device))
    assert one.shape == () and one.item() == 1.0
    big = torch.tensor([[1e4, 1e4 - 1.0, -1e4]], device=device)  # exp(1e4) overflows without the shift
    assert_close(tilelab.softmax(big), softmax_reference(big), torch.float32, "large values")


@pytest.mark.parametrize("cols", COLUMNS)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_rmsnorm_matches_float64(cols, dtype, device, rng):
    x = randn((6, cols), dtype, device, rng)
    weight = randn((cols,), dtype, device, rng)
    assert_close(tilelab.rmsnorm(x, weight, eps=1e-5), rmsnorm_reference(x, weight, 1e-5), dtype, f"{cols}")
    assert_close(tilelab.rmsnorm(x), rmsnorm_reference(x), dtype, f"{cols}, no weight")


@pytest.mark.parametrize("cols", [1, 16, 17, 100])
@pytest.mark.parametrize("two_passes", [False, True])
def test_residual_rmsnorm(cols, two_passes, device, rng, monkeypatch):
    if two_passes:
        monkeypatch.setattr(rows_op, "MAX_BLOCK", 16)
    x = randn((2, 3, cols), torch.float16, device, rng)
    residual = randn((2, 3, cols), torch.float16, device, rng)
    weight = randn((cols,), torch.float32, device, rng)
    y, h = tilelab.rmsnorm(x, weight, residual=residual)
    assert_close(h, x.double().cpu() + residual.double().cpu(), torch.float16, "the sum")
    assert_close(y, rmsnorm_reference(x, weight, residual=residual), torch.float16, "the norm")


def test_rmsnorm_two_passes_zero_rows_and_a_large_eps(device, rng, small_blocks):
    zeros = torch.zeros(2, 40, device=device)  # eps keeps the root finite in the two-pass path too
    assert torch.equal(tilelab.rmsnorm(zeros).cpu(), torch.zeros(2, 40))
    x = randn((3, 40), torch.float32, device, rng)
    assert_close(tilelab.rmsnorm(x, eps=0.1), rmsnorm_reference(x, eps=0.1), torch.float32, "eps 0.1, two passes")


def test_rmsnorm_strided_rows_and_zero_rows(device, rng):
    x = randn((4, 40), torch.float32, device, rng)[:, ::2]  # a column stride of 2: copied to unit stride
    assert_close(tilelab.rmsnorm(x), rmsnorm_reference(x), torch.float32, "strided")
    zeros = torch.zeros(2, 8, device=device)  # eps keeps the root finite
    assert torch.equal(tilelab.rmsnorm(zeros).cpu(), torch.zeros(2, 8))
    assert tilelab.rmsnorm(torch.empty(0, 8, device=device)).shape == (0, 8)


def _error_cases(device):
    x = torch.randn(3, 8, device=device)
    return [
        (tilelab.softmax, (x.tolist(),), {}, tilelab.InputTypeError, "x must be a torch.Tensor"),
        (tilelab.softmax, (x.double(),), {}, tilelab.DTypeError, "x has dtype float64"),
        (tilelab.softmax, (x,), {"dim": 2}, tilelab.ShapeError, "dim=2 is out of range"),
        (tilelab.softmax, (x,), {"dim": 1.0}, tilelab.InputTypeError, "dim must be an int"),
        (tilelab.rmsnorm, (x.int(),), {}, tilelab.DTypeError, "x has dtype int32"),
        (tilelab.rmsnorm, (x, torch.ones(7, device=device)), {}, tilelab.ShapeError, r"weight must have shape \(8,\)"),
        (tilelab.rmsnorm, (x, torch.ones(8, dtype=torch.int64, device=device)), {}, tilelab.DTypeError,
         "weight must be a floating-point"),
        (tilelab.rmsnorm, (x,), {"eps": -1.0}, tilelab.ContractError, "eps must be a finite number"),
        (tilelab.rmsnorm, (x,), {"residual": x.half()}, tilelab.DTypeError, "x=float32, residual=float16"),
        (tilelab.rmsnorm, (x,), {"residual": x[:2]}, tilelab.ShapeError, r"residual must have x's shape \(3, 8\)"),
        (tilelab.rmsnorm, (torch.tensor(1.0, device=device),), {}, tilelab.ShapeError, "at least 1 dimension"),
    ]


@pytest.mark.parametrize("case", range(11))
def test_bad_arguments_get_typed_errors(case, device):
    function, args, kwargs, error, match = _error_cases(device)[case]
    with pytest.raises(error, match=match):
        function(*args, **kwargs)


def test_error_case_count():
    assert len(_error_cases("cpu")) == 11


@pytest.mark.parametrize("dim", [0, -1])
def test_softmax_gradient(dim, device, rng):
    x = scaled((3, 20), torch.float32, device, rng).requires_grad_()
    grad = randn((3, 20), torch.float32, device, rng)
    tilelab.softmax(x, dim).backward(grad)
    x64 = x.detach().cpu().double().requires_grad_()
    torch.softmax(x64, dim).backward(grad.cpu().double())
    assert relative_error(x.grad, x64.grad) < 1e-5


def test_rmsnorm_gradients_with_and_without_residual(device, rng):
    x = randn((3, 20), torch.float32, device, rng).requires_grad_()
    residual = randn((3, 20), torch.float32, device, rng).requires_grad_()
    weight = randn((20,), torch.float32, device, rng).requires_grad_()
    grad_y, grad_h = (randn((3, 20), torch.float32, device, rng) for _ in range(2))
    y, h = tilelab.rmsnorm(x, weight, residual=residual)
    torch.autograd.backward((y, h), (grad_y, grad_h))
    copies = [t.detach().cpu().double().requires_grad_() for t in (x, residual, weight)]
    h64 = copies[0] + copies[1]
    y64 = h64 * torch.rsqrt(h64.pow(2).mean(-1, keepdim=True) + 1e-6) * copies[2]
    torch.autograd.backward((y64, h64), (grad_y.cpu().double(), grad_h.cpu().double()))
    for got, want, name in zip((x, residual, weight), copies, ("x", "residual", "weight"), strict=True):
        assert relative_error(got.grad, want.grad) < 1e-5, name
    x2 = x.detach().clone().requires_grad_()
    tilelab.rmsnorm(x2).sum().backward()
    assert x2.grad.shape == x2.shape


def test_custom_ops_pass_opcheck(device, rng):
    import tilelab.library  # noqa: F401

    x = randn((3, 10), torch.float32, device, rng).requires_grad_()
    w = randn((10,), torch.float32, device, rng).requires_grad_()
    torch.library.opcheck(torch.ops.tilelab.softmax.default, (x, -1))
    torch.library.opcheck(torch.ops.tilelab.softmax.default, (x, 0))
    torch.library.opcheck(torch.ops.tilelab.rmsnorm.default, (x, w, 1e-6))
    torch.library.opcheck(torch.ops.tilelab.residual_rmsnorm.default, (x, x.detach().clone(), w, 1e-6))
