"""Property-based tests of the public ops (hypothesis), on the interpreter without a GPU, else on it: matmul,
linear, softmax, rmsnorm, conv2d_bn_silu and scaled_matmul.

Each example draws a shape (zeros and ragged sizes included), a dtype, and operands stored as they come in
practice: contiguous, transposed, every other column of a wider tensor, or one element past an aligned start,
all inside NaN. The op either matches float64 within the dtype's tolerance, with every output element written
(outputs are poisoned with NaN first) and nothing read past an operand, or refuses with one of tilelab's typed
contract errors naming the argument. Nothing else is allowed: no other exception, no NaN left behind.
"""

import pytest
import torch
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import tilelab
from tests.helpers import assert_matches_reference, randn
from tests.interpreter import test_conv_interpreter as conv_tests
from tests.interpreter.test_linear_interpreter import check as check_linear
from tests.interpreter.test_rows_interpreter import assert_close
from tilelab.reference import relative_error, rmsnorm_reference, softmax_reference, tolerance

guarded_outputs = conv_tests.guarded_outputs  # conv's outputs in NaN guard bands (a fixture)
# The interpreter runs each program in numpy: a few dozen small examples per op keep this under a minute.
FUZZ = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
DTYPES = [torch.float32, torch.float16] + ([torch.bfloat16] if torch.cuda.is_available() else [])
LAYOUTS = ["contiguous", "transposed", "every other column", "offset by one element"]
SIDE = st.integers(0, 70)
# How far an fp8 product's float32 result may stray, per unit of its sum of |products|. The interpreter adds in
# float32 (at most 80 adds here: 80 * 2**-24 < 2**-17); Hopper's fp8 wgmma keeps about 14 mantissa bits in its
# running sum (kernels/matmul_fp8.py), and 2**-10 leaves it a few of those steps.
FP8_ACCUMULATOR_STEP = 2**-10 if torch.cuda.is_available() else 2**-17


def stored(values: torch.Tensor, layout: str) -> torch.Tensor:
    """`values` as a tensor of the same shape and contents, stored as `layout` says (a 1-D tensor cannot be
    transposed: it stays contiguous), inside NaN: a load past the operand, or from a skipped column, brings a
    NaN into the result."""
    if layout == "transposed" and values.dim() >= 2:  # its last two dimensions stored the other way round
        return stored(values.mT, "contiguous").mT
    if layout == "every other column":
        wide = torch.full((*values.shape[:-1], 2 * values.shape[-1]), float("nan"), dtype=values.dtype,
                          device=values.device)
        wide[..., ::2] = values
        return wide[..., ::2]
    start = 1 if layout == "offset by one element" else 0  # one element past the allocation's aligned start
    fence = torch.full((start + values.numel() + 256,), float("nan"), dtype=values.dtype, device=values.device)
    return fence[start:start + values.numel()].view(values.shape).copy_(values)


def value_source(data, device):
    """`values(shape, dtype)`: fresh standard normal values, every tensor of an example from one generator whose
    seed hypothesis draws (so a failing example replays). A seed drawn per tensor repeats now and then (hypothesis
    favours duplicates): B's values refilled into A made an fp8 product B^T B on the H200 (call HHHHHHHHHH), whose
    diagonal of squares overflowed float16."""
    generator = torch.Generator().manual_seed(data.draw(st.integers(0, 2**31 - 1), "seed"))
    return lambda shape, dtype: randn(shape, dtype, device, generator)


@FUZZ
@given(data=st.data())
def test_matmul_any_layout_and_batch(data, device, poisoned_outputs):
    values = value_source(data, device)
    dtype = data.draw(st.sampled_from(DTYPES), "dtype")
    m, n, k = data.draw(SIDE, "m"), data.draw(SIDE, "n"), data.draw(SIDE, "k")
    batch_a = data.draw(st.sampled_from([(), (1,), (3,), (2, 3)]), "batch of a")
    batch_b = data.draw(st.sampled_from([(), batch_a, batch_a[-1:], (1,) * len(batch_a)]), "batch of b")
    vector = data.draw(st.sampled_from([None, None, None, "a", "b"]), "a vector operand")
    a_shape = (k,) if vector == "a" else (*batch_a, m, k)
    b_shape = (k,) if vector == "b" else (*batch_b, k, n)
    a = stored(values(a_shape, dtype), data.draw(st.sampled_from(LAYOUTS), "a"))
    b = stored(values(b_shape, dtype), data.draw(st.sampled_from(LAYOUTS), "b"))
    path = data.draw(st.sampled_from([None, "pointer", "descriptor", "splitk"]), "path")
    event(f"largest side {max(m, n, k) // 16 * 16}+")
    precision = data.draw(st.sampled_from([None, "tf32", "tf32x3", "ieee"]), "precision") \
        if dtype == torch.float32 else None
    out_dtype = data.draw(st.sampled_from([None, torch.float32, torch.float16]), "out_dtype")
    label = (f"{tuple(a.shape)} @ {tuple(b.shape)} {dtype}, strides {a.stride()} {b.stride()}, path {path}, "
             f"precision {precision}, out_dtype {out_dtype}")
    try:
        out = tilelab.matmul(a, b, path=path, precision=precision, out_dtype=out_dtype)
    except tilelab.AlignmentError as error:  # TMA's 16-byte rule, refused by name
        assert path == "descriptor", f"{label}: only a forced TMA path may refuse a layout ({error})"
        assert "path='descriptor' needs" in str(error), str(error)
        return
    assert_matches_reference(out, a, b, precision=precision, out_dtype=out_dtype, label=label)


@FUZZ
@given(data=st.data())
def test_linear_any_layout(data, device):
    values = value_source(data, device)
    dtype = data.draw(st.sampled_from(DTYPES), "dtype")
    m, n, k = data.draw(SIDE, "m"), data.draw(st.integers(1, 70), "n"), data.draw(SIDE, "k")
    lead = data.draw(st.sampled_from([(), (2,)]), "leading dimensions of x")
    x = stored(values((*lead, m, k), dtype), data.draw(st.sampled_from(LAYOUTS), "x"))
    weight = stored(values((n, k), dtype), data.draw(st.sampled_from(LAYOUTS), "weight"))
    bias = values((n,), dtype) if data.draw(st.booleans(), "bias") else None
    activation = data.draw(st.sampled_from([None, "relu", "gelu", "silu"]), "activation")
    out = tilelab.linear(x, weight, bias, activation=activation)
    label = f"x {tuple(x.shape)} {x.stride()}, weight {tuple(weight.shape)} {weight.stride()}, {activation}"
    check_linear(out, x, weight, bias, activation, label=label)


@FUZZ
@given(data=st.data())
def test_softmax_any_dim_and_layout(data, device):
    values = value_source(data, device)
    dtype = data.draw(st.sampled_from(DTYPES), "dtype")
    shape = tuple(data.draw(st.lists(st.integers(0, 40), min_size=2, max_size=3), "shape"))
    x = stored(values(shape, dtype) * 4, data.draw(st.sampled_from(LAYOUTS), "x"))
    dim = data.draw(st.integers(-len(shape), len(shape) - 1), "dim")
    out = tilelab.softmax(x, dim)
    assert_close(out, softmax_reference(x, dim), dtype, f"{tuple(x.shape)} {x.stride()} dim {dim}")


@FUZZ
@given(data=st.data())
def test_rmsnorm_any_layout_weight_and_residual(data, device):
    values = value_source(data, device)
    dtype = data.draw(st.sampled_from(DTYPES), "dtype")
    shape = tuple(data.draw(st.lists(st.integers(0, 40), min_size=1, max_size=3), "shape"))
    x = stored(values(shape, dtype), data.draw(st.sampled_from(LAYOUTS), "x"))
    weight = values(shape[-1:], dtype) if data.draw(st.booleans(), "weight") else None
    residual = values(shape, dtype) if data.draw(st.booleans(), "residual") else None
    label = f"{tuple(x.shape)} {x.stride()}, weight {weight is not None}, residual {residual is not None}"
    if residual is None:
        assert_close(tilelab.rmsnorm(x, weight), rmsnorm_reference(x, weight), dtype, label)
        return
    y, h = tilelab.rmsnorm(x, weight, residual=residual)
    assert_close(h, x.double().cpu() + residual.double().cpu(), dtype, f"{label}: the sum")
    assert_close(y, rmsnorm_reference(x, weight, residual=residual), dtype, label)


@pytest.mark.parametrize("op", ["matmul", "linear", "softmax", "rmsnorm"])
def test_wrong_types_are_typed_errors(op, device):
    """Whatever the op is handed in place of a tensor, the refusal is a ContractError (and a TypeError)."""
    x = torch.randn(4, 4, device=device)
    for bad in (None, 3, [[1.0]], x.numpy() if device == "cpu" else [1]):
        with pytest.raises(tilelab.InputTypeError):
            {"matmul": lambda v: tilelab.matmul(v, x), "linear": lambda v: tilelab.linear(v, x),
             "softmax": lambda v: tilelab.softmax(v), "rmsnorm": lambda v: tilelab.rmsnorm(v)}[op](bad)


@FUZZ
@given(data=st.data())
def test_conv2d_bn_silu_any_geometry(data, device, guarded_outputs):
    """Random geometry, groups and memory format; an output with no pixels is refused as a ShapeError naming it.
    Grouped, mostly a few channels per group (the direct kernel, depthwise among them), sometimes 16 or 17 (the
    implicit GEMM per group)."""
    dtype = data.draw(st.sampled_from(DTYPES), "dtype")
    batch = data.draw(st.integers(1, 2), "batch")
    groups = data.draw(st.sampled_from([1, 1, 2, 3, 4]), "groups")
    if groups == 1:
        c_in, c_out = data.draw(st.integers(1, 9), "c_in"), data.draw(st.integers(1, 9), "c_out")
    else:
        per_group_in = data.draw(st.sampled_from([1, 1, 2, 3, 16, 17] if groups == 2 else [1, 1, 2, 3]),
                                 "input channels per group")
        c_in, c_out = groups * per_group_in, groups * data.draw(st.integers(1, 3), "output channels per group")
    h, w = data.draw(st.integers(1, 9), "h"), data.draw(st.integers(1, 9), "w")
    kernel = (data.draw(st.integers(1, 3), "kh"), data.draw(st.integers(1, 3), "kw"))
    stride = (data.draw(st.integers(1, 2), "sh"), data.draw(st.integers(1, 2), "sw"))
    padding = data.draw(st.sampled_from([0, 1, 2, (1, 0), "valid"]), "padding")
    dilation = data.draw(st.integers(1, 2), "dilation")
    gen = torch.Generator().manual_seed(data.draw(st.integers(0, 2**31 - 1), "seed"))
    x, weight, bias, params = conv_tests.make_problem(batch, c_in, h, w, c_out, kernel, dtype, device, gen,
                                                      affine=data.draw(st.booleans(), "affine"),
                                                      conv_bias=data.draw(st.booleans(), "conv bias"), groups=groups)
    if data.draw(st.booleans(), "channels last"):
        x = x.to(memory_format=torch.channels_last)
    conv = {"stride": stride, "padding": padding, "dilation": dilation, "groups": groups}
    label = f"{tuple(x.shape)} {x.stride()} -> {c_out}, kernel {kernel}, {conv}"
    try:
        y = tilelab.conv2d_bn_silu(x, weight, bias, **params, **conv)
    except tilelab.ShapeError as error:  # the filter does not fit the padded image
        assert "output" in str(error), f"{label}: {error}"
        event("refused: no output pixels")
        return
    event(f"computed, {'grouped' if groups > 1 else 'ungrouped'}")
    conv_tests.assert_matches(y, x, weight, bias, params, label=label, **conv)
    conv_tests.check_guards(guarded_outputs)


@FUZZ
@given(data=st.data())
def test_scaled_matmul_any_size_and_layout(data, device, hopper_only):
    """fp8 A [M, K] row-major and B [K, N] stored K-major, any sizes: a result within its accumulator's rounding
    of the exact product of the fp8 values, or AlignmentError/ShapeError naming what TMA needs (16-byte rows: K a
    multiple of 16 fp8 values) and what a matrix must be."""
    from tilelab.ops import scaled_matmul as op

    values = value_source(data, device)
    m, n = data.draw(SIDE, "m"), data.draw(SIDE, "n")
    k = data.draw(st.one_of(st.integers(0, 5).map(lambda steps: 16 * steps), SIDE), "k")  # aligned, mostly
    a = (values((m, k), torch.float32) * 2).to(op.INPUT_DTYPE)
    b = (values((n, k), torch.float32) * 2).to(op.INPUT_DTYPE)
    b = b.t() if data.draw(st.sampled_from([True, True, True, False]), "B stored K-major") else b.t().contiguous()
    scale_a = torch.tensor([data.draw(st.floats(0.125, 4.0), "scale_a")], device=device)
    scale_b = torch.tensor([data.draw(st.floats(0.125, 4.0), "scale_b")], device=device)
    out_dtype = data.draw(st.sampled_from([torch.float32, torch.bfloat16, torch.float16]), "out_dtype")
    fast = data.draw(st.booleans(), "use_fast_accum")
    label = f"{m}x{n}x{k}, B strides {b.stride()}, {out_dtype}, fast {fast}"
    try:
        out = op.scaled_matmul(a, b, scale_a, scale_b, out_dtype=out_dtype, use_fast_accum=fast)
    except (tilelab.AlignmentError, tilelab.ShapeError) as error:
        event(f"refused: {type(error).__name__}")
        assert k % 16 or b.stride(0) != 1 or m * n * k == 0, f"{label}: refused an aligned problem ({error})"
        return
    event("computed")
    ref = op.scaled_matmul_reference(a, b, scale_a, scale_b)
    assert tuple(out.shape) == (m, n) and out.dtype == out_dtype, label
    assert not torch.isnan(out).any(), f"{label}: NaN left in the output"
    if out.numel() and out_dtype != torch.float32:
        err = relative_error(out, ref)
        assert err <= tolerance(out_dtype), f"{label}: {err:.2e}"
    elif out.numel():  # no output rounding to hide the accumulator's: hold each element to its own sum's bound
        scale = abs(scale_a.item() * scale_b.item())
        magnitude = (a.cpu().double().abs() @ b.cpu().double().abs()) * scale  # each element's sum of |products|
        error = (out.cpu().double() - ref).abs()
        worst = (error / (magnitude * FP8_ACCUMULATOR_STEP + 1e-30)).max().item()
        assert worst <= 1, f"{label}: error {error.max().item():.2e}, {worst:.2f}x the accumulator's bound"
