"""The float64 references and the error budget themselves (tilelab.reference), found untested by mutation
testing (thirty-second session): every kernel test trusts them, so a reference computed in float32, a comparison
that broadcasts a wrong shape or a budget too loose to see a real bug would let those tests pass on wrong
kernels."""

import pytest
import torch

from tests.helpers import randn, to_tf32
from tilelab import reference


def test_the_matmul_reference_is_float64_on_the_cpu(rng):
    a, b = randn((7, 65), torch.float32, "cpu", rng), randn((65, 33), torch.float32, "cpu", rng)
    ref = reference.matmul_reference(a, b)
    assert ref.dtype == torch.float64 and ref.device.type == "cpu"
    assert torch.equal(ref, a.double() @ b.double())  # not a float32 product widened afterwards


def test_the_row_and_conv_references_are_float64(rng):
    x = randn((5, 7), torch.float32, "cpu", rng)
    assert reference.softmax_reference(x).dtype == torch.float64
    assert torch.equal(reference.softmax_reference(x, 0), torch.softmax(x.double(), 0))
    assert reference.rmsnorm_reference(x).dtype == torch.float64
    image, weight = randn((1, 3, 6, 6), torch.float32, "cpu", rng), randn((4, 3, 3, 3), torch.float32, "cpu", rng)
    stats = randn((4,), torch.float32, "cpu", rng).abs() + 0.5
    conv = reference.conv2d_bn_silu_reference(image, weight, running_mean=stats, running_var=stats)
    assert conv.dtype == torch.float64


def test_relative_error_refuses_shapes_that_would_broadcast(rng):
    ref = randn((7, 65), torch.float32, "cpu", rng)
    for out in (ref[:1], ref[:, :1], ref[0], ref.t()):
        with pytest.raises(ValueError, match="shapes differ"):
            reference.relative_error(out, ref)


def test_relative_error_against_a_zero_reference_is_the_absolute_error(rng):
    out = randn((3, 5), torch.float32, "cpu", rng)
    zero = torch.zeros(3, 5)
    assert reference.relative_error(zero, zero) == 0.0
    assert reference.relative_error(out, zero) == pytest.approx(out.double().norm().item())
    assert reference.relative_error(torch.full((3, 5), float("inf")), zero) == float("inf")


def _accumulated_in(dtype, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """a @ b with the running sum rounded to `dtype` after every K term: an accumulator of the inputs' own
    dtype, the bug the float32 accumulator prevents."""
    acc = torch.zeros(a.shape[0], b.shape[1], dtype=dtype)
    a32, b32 = a.float(), b.float()
    for k in range(a.shape[1]):
        acc = (acc.float() + a32[:, k, None] * b32[None, k, :]).to(dtype)
    return acc


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_the_budget_passes_a_float32_sum_and_fails_a_sum_in_the_inputs_dtype(dtype, rng):
    """The budget sits between correct rounding and a real bug: a float32 sum rounded once to fp16/bf16 is
    within it, a sum rounded to fp16/bf16 at each of K = 4096 terms is not (about 4x the budget)."""
    a, b = randn((16, 4096), dtype, "cpu", rng), randn((4096, 16), dtype, "cpu", rng)
    ref = reference.matmul_reference(a, b)
    allowed = reference.tolerance(dtype)
    assert reference.relative_error((a.float() @ b.float()).to(dtype), ref) <= allowed
    wrong = reference.relative_error(_accumulated_in(dtype, a, b), ref)
    assert wrong > allowed, f"a {dtype} accumulator errs by {wrong:.2e}, within the budget {allowed:.1e}"


def test_the_float32_budgets_tell_tf32_from_ieee(rng):
    """tf32 rounds the inputs to 10 mantissa bits: within its own budget, far outside ieee's and tf32x3's."""
    a, b = randn((16, 256), torch.float32, "cpu", rng), randn((256, 16), torch.float32, "cpu", rng)
    ref = reference.matmul_reference(a, b)
    err = reference.relative_error(to_tf32(a).double() @ to_tf32(b).double(), ref)
    assert err <= reference.tolerance(torch.float32, "tf32")
    assert err > reference.tolerance(torch.float32, "tf32x3") and err > reference.tolerance(torch.float32, "ieee")
    assert reference.tolerance(torch.float32) == reference.tolerance(torch.float32, "tf32")
