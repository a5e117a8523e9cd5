"""Property-based tests of the public ops at the GPU's own scale (hypothesis): random shapes up to a few
thousand a side, stored as they come in practice, on every kernel path, each result against float64.

The interpreter's fuzz tests (`tests/interpreter/test_fuzz_interpreter.py`) keep sides below 71 (and images below
10 pixels), so on a GPU they never reach what only large problems take: the persistent and pingpong kernels, A's
rows read in classes, split-K through TMA, the registers kernel's tiles, wide tiles, the shipped tuning table's
buckets, and a CNN's layers on conv2d_bn_silu's two kernels. Here each
example draws such a problem and checks it twice:

1. a first call into an output poisoned with NaN (an element never written fails), and
2. a replayed call: the inputs refilled in place with new values, the launch recorded by the first call run
   again (`_REPLAYS` of `ops/matmul.py`, `ops/conv.py`, ...), its fresh output and any split-K workspace
   poisoned too.

Replays live for the whole test, so a later example whose tensors land at a freed address with other strides
meets the earlier examples' recordings: a replay key that forgets what a launch depends on gives a wrong answer.

TILELAB_FUZZ_EXAMPLES sets the examples per test (default 25). Run on the H200 with:
TILELAB_REQUIRE_GPU=1 PYTHONPATH=src python -m pytest tests/gpu/test_fuzz_gpu.py -q -n 16
"""

import contextlib
import os

import pytest
import torch
from hypothesis import HealthCheck, Phase, event, given, settings
from hypothesis import strategies as st

import tilelab
from tests.helpers import assert_matches_reference, randn
from tests.interpreter import test_conv_interpreter as conv_tests
from tests.interpreter.test_fuzz_interpreter import LAYOUTS, stored, value_source
from tests.interpreter.test_linear_interpreter import check as check_linear
from tests.interpreter.test_rows_interpreter import assert_close
from tilelab.ops import matmul as matmul_op
from tilelab.reference import relative_error, rmsnorm_reference, softmax_reference, tolerance

pytestmark = [pytest.mark.gpu]

# No shrinking: on a GPU it can outlast the run, and each failure's message already names its whole problem.
FUZZ = settings(max_examples=int(os.environ.get("TILELAB_FUZZ_EXAMPLES", "25")), deadline=None,
                phases=[Phase.explicit, Phase.reuse, Phase.generate],
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
# Sides a model meets (powers of two, 1000s, ragged neighbours), anything small, and multiples of 8 up to 2600,
# whose rows TMA can read (16-byte strides).
SIDE = st.one_of(st.sampled_from([1, 7, 16, 65, 127, 128, 255, 256, 512, 1000, 1024, 2048, 3000]),
                 st.integers(1, 300), st.integers(38, 325).map(lambda eighths: 8 * eighths))
# Mostly as a model stores them, so that forced TMA paths run more often than they refuse.
LAYOUT = st.sampled_from(["contiguous"] * 4 + LAYOUTS)
# batch * M * N * K, above PERSISTENT_MIN_WORK (2**34) so that one large GEMM takes the default's Hopper kernels;
# the float64 reference runs on the GPU, so an example stays well under a second once tuned.
MAX_PRODUCTS = 2**35
# Large problems, half of each test's, for the kernels the planner keeps for them (persistent, pingpong,
# registers, row classes, and copies onto lines for rows TMA cannot read: 1001 and 1500).
LARGE_SIDE = st.one_of(st.integers(160, 512).map(lambda eighths: 8 * eighths),
                       st.sampled_from([2000, 3000, 4000, 1001, 1500]))


def draw_gemm(data, max_products=MAX_PRODUCTS) -> tuple[int, int, int]:
    side = data.draw(st.sampled_from([SIDE, LARGE_SIDE]), "sizes")
    m, n, k = data.draw(side, "m"), data.draw(side, "n"), data.draw(side, "k")
    while m * n * k > max_products:  # shrink the largest side until the problem fits the budget
        largest = max(m, n, k)
        m, n, k = (side // 2 if side == largest else side for side in (m, n, k))
    return m, n, k


@contextlib.contextmanager
def poisoned_allocations():
    """Every buffer tilelab allocates for a result or a split-K workspace starts as NaN: a first call's output
    (matmul's and linear's `_allocate_output`, scaled_matmul's, conv2d_bn_silu's) and a replayed launch's
    (`Tensor.new_empty`, which the replays use)."""
    from tilelab.ops import conv as conv_op
    from tilelab.ops import scaled_matmul as scaled_op

    real_new_empty = torch.Tensor.new_empty

    def poisoning(allocate):
        def poisoned(*args, **kwargs):
            out = allocate(*args, **kwargs)
            (out._base if out._base is not None else out).fill_(float("nan"))
            return out
        return poisoned

    def new_empty(self, *args, **kwargs):
        out = real_new_empty(self, *args, **kwargs)
        return out.fill_(float("nan")) if out.is_floating_point() else out

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(matmul_op, "_allocate_output", poisoning(matmul_op._allocate_output))
        patch.setattr(scaled_op, "_allocate_output", poisoning(scaled_op._allocate_output))
        patch.setattr(conv_op, "_allocate_output", poisoning(conv_op._allocate_output))
        patch.setattr(torch.Tensor, "new_empty", new_empty)
        yield


def refill(tensors, values) -> None:
    """New values in the same storage: a replay finds its recording under the same key."""
    for x in tensors:
        x.copy_(values(tuple(x.shape), x.dtype))


PATH_GROUPS = {  # one test each, so that pytest-xdist spreads them over its workers
    "default": [None],
    "pointer and descriptor": ["pointer", "descriptor"],
    "persistent and split-K": ["persistent", "splitk"],
    "Gluon": ["gluon"],  # pingpong (float16, bfloat16) or registers (float32, tf32)
}


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32], ids=str)
@pytest.mark.parametrize("group", PATH_GROUPS)
@FUZZ
@given(data=st.data())
def test_matmul_at_gpu_scale(data, group, dtype, hopper_only):
    values = value_source(data, "cuda")
    m, n, k = draw_gemm(data)
    batch = data.draw(st.sampled_from([(), (), (), (2,), (3,)]), "batch")
    if batch:
        m, n, k = draw_gemm(data, MAX_PRODUCTS // 8)
    shared_b = bool(batch) and data.draw(st.booleans(), "one B for the whole batch")
    a = stored(values((*batch, m, k), dtype), data.draw(LAYOUT, "a"))
    b = stored(values((k, n) if shared_b else (*batch, k, n), dtype),
               data.draw(LAYOUT, "b"))
    path = data.draw(st.sampled_from(PATH_GROUPS[group]), "path")
    if path == "gluon":
        path = "registers" if dtype == torch.float32 else "pingpong"
    precision = None
    if dtype == torch.float32:
        precisions = [None, "tf32"] if path == "registers" else [None, "tf32", "tf32x3", "ieee"]
        precision = data.draw(st.sampled_from(precisions), "precision")
    out_dtype = data.draw(st.sampled_from([None, None, torch.float32, torch.float16]), "out_dtype")
    label = (f"{tuple(a.shape)} @ {tuple(b.shape)} {dtype}, strides {a.stride()} {b.stride()}, path {path}, "
             f"precision {precision}, out_dtype {out_dtype}")

    def run():
        return tilelab.matmul(a, b, path=path, precision=precision, out_dtype=out_dtype)

    try:
        with poisoned_allocations():
            first = run()
    except tilelab.ContractError as error:  # a forced path that cannot take these operands says so by name
        assert path is not None, f"{label}: the default refused ({type(error).__name__}: {error})"
        assert f"path={path!r}" in str(error), f"{label}: a refusal that does not name the path: {error}"
        event(f"{path}: refused ({type(error).__name__})")
        return
    plan = matmul_op.describe_plan(a, b, path=path, precision=precision)
    copies = f" after copying {' and '.join(plan['line_copies'])}" if plan.get("line_copies") else ""
    event(f"{path}: ran {plan['path']}{' in row classes' if plan.get('row_classes', 1) > 1 else ''}{copies}")
    assert_matches_reference(first, a, b, precision=precision, out_dtype=out_dtype, label=label, on_device=True)

    refill((a, b), values)  # the first call recorded its launch: this one replays it
    with poisoned_allocations():
        replayed = run()
    assert_matches_reference(replayed, a, b, precision=precision, out_dtype=out_dtype, label=f"{label}, replayed",
                             on_device=True)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32], ids=str)
@FUZZ
@given(data=st.data())
def test_linear_at_gpu_scale(data, dtype):
    values = value_source(data, "cuda")
    m, n, k = draw_gemm(data, 2**31)
    x = stored(values((m, k), dtype), data.draw(LAYOUT, "x"))
    weight = stored(values((n, k), dtype), data.draw(LAYOUT, "weight"))
    bias = values((n,), dtype) if data.draw(st.booleans(), "bias") else None
    activation = data.draw(st.sampled_from([None, "relu", "gelu", "silu"]), "activation")
    label = f"x {tuple(x.shape)} {x.stride()}, weight {tuple(weight.shape)} {weight.stride()}, {activation}"
    with poisoned_allocations():
        out = tilelab.linear(x, weight, bias, activation=activation)
    check_linear(out, x, weight, bias, activation, label=label)
    refill([t for t in (x, weight, bias) if t is not None], values)
    with poisoned_allocations():
        out = tilelab.linear(x, weight, bias, activation=activation)
    check_linear(out, x, weight, bias, activation, label=f"{label}, replayed")


ROW_LENGTHS = st.one_of(st.integers(1, 9000), st.sampled_from([8192, 8193, 16384, 32000, 50257, 128256]))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32], ids=str)
@FUZZ
@given(data=st.data())
def test_softmax_and_rmsnorm_long_rows(data, dtype):
    """Rows past one block (8192 lanes) take the two-pass kernels."""
    values = value_source(data, "cuda")
    cols = data.draw(ROW_LENGTHS, "columns")
    rows = data.draw(st.integers(1, max(1, 2**22 // cols)), "rows")
    x = stored(values((rows, cols), dtype) * 4, data.draw(LAYOUT, "x"))
    label = f"{tuple(x.shape)} {x.stride()}"
    event("two passes" if cols > 8192 else "one pass")
    assert_close(tilelab.softmax(x), softmax_reference(x), dtype, f"softmax {label}")
    weight = values((cols,), dtype) if data.draw(st.booleans(), "weight") else None
    assert_close(tilelab.rmsnorm(x, weight), rmsnorm_reference(x, weight), dtype, f"rmsnorm {label}")


@FUZZ
@given(data=st.data())
def test_scaled_matmul_at_gpu_scale(data, hopper_only):
    """fp8 with B stored K-major, K a multiple of 16 (TMA's rows): within the output dtype's rounding of the exact
    product of the fp8 values, first and replayed."""
    from tilelab.ops import scaled_matmul as op

    values = value_source(data, "cuda")
    m, n, k = draw_gemm(data)
    k = max(16, k // 16 * 16)
    a = (values((m, k), torch.float32) * 2).to(op.INPUT_DTYPE)
    b = (values((n, k), torch.float32) * 2).to(op.INPUT_DTYPE).t()
    scale_a = torch.tensor([data.draw(st.floats(0.125, 4.0), "scale_a")], device="cuda")
    scale_b = torch.tensor([data.draw(st.floats(0.125, 4.0), "scale_b")], device="cuda")
    out_dtype = data.draw(st.sampled_from([torch.bfloat16, torch.float16]), "out_dtype")
    fast = data.draw(st.booleans(), "use_fast_accum")
    label = f"{m}x{n}x{k}, {out_dtype}, fast {fast}"

    def run():
        return op.scaled_matmul(a, b, scale_a, scale_b, out_dtype=out_dtype, use_fast_accum=fast)

    for attempt in ("first", "replayed"):
        with poisoned_allocations():
            out = run()
        ref = op.scaled_matmul_reference(a, b, scale_a, scale_b)
        assert tuple(out.shape) == (m, n) and out.dtype == out_dtype, label
        err = relative_error(out, ref)
        assert err <= tolerance(out_dtype), f"{label}, {attempt}: {err:.2e}"
        a.copy_((values((m, k), torch.float32) * 2).to(op.INPUT_DTYPE))
        scale_b.fill_(data.draw(st.floats(0.125, 4.0), "new scale_b"))


# A CNN's channel counts (RGB, ragged, MobileNet's and ResNet's) and image sides, and anything small.
CHANNELS = st.one_of(st.sampled_from([1, 3, 16, 24, 32, 33, 64, 96, 128, 256, 512]), st.integers(1, 160))
IMAGE_SIDE = st.one_of(st.sampled_from([1, 7, 14, 28, 56, 112]), st.integers(1, 64))
# Multiply-adds of one call: the float64 reference runs on the CPU.
MAX_CONV_MACS = 2**30


def draw_layer(data) -> dict:
    """One convolution a CNN might have: dense, depthwise (with a channel multiplier) or grouped; a filter of 1
    to 7 taps a side, stride 1 or 2, dilation 1 or 2, padding none, one, or half the filter's reach. One image in
    five may be smaller than the filter's reach (an output with no pixels: refused)."""
    kind = data.draw(st.sampled_from(["dense", "dense", "depthwise", "grouped"]), "kind")
    if kind == "dense":
        groups, c_in, c_out = 1, data.draw(CHANNELS, "c_in"), data.draw(CHANNELS, "c_out")
    elif kind == "depthwise":
        groups = c_in = data.draw(CHANNELS, "c_in")
        c_out = c_in * data.draw(st.sampled_from([1, 1, 2, 4]), "channel multiplier")
    else:
        groups = data.draw(st.sampled_from([2, 4, 8, 32]), "groups")
        c_in = groups * data.draw(st.sampled_from([1, 2, 4, 8, 16, 17, 32]), "input channels per group")
        c_out = groups * data.draw(st.integers(1, 16), "output channels per group")
    kh = data.draw(st.sampled_from([1, 1, 3, 3, 3, 5, 7]), "kh")
    kw = kh if data.draw(st.booleans(), "square filter") else data.draw(st.integers(1, 7), "kw")
    dilation = data.draw(st.sampled_from([1, 1, 1, 2]), "dilation")
    padding = data.draw(st.sampled_from(["half", "half", 0, 1]), "padding")
    if padding == "half":
        padding = ((kh - 1) * dilation // 2, (kw - 1) * dilation // 2)
    h = data.draw(IMAGE_SIDE, "h")
    w = h if data.draw(st.booleans(), "square image") else data.draw(IMAGE_SIDE, "w")
    pad_h, pad_w = padding if isinstance(padding, tuple) else (padding, padding)
    if data.draw(st.sampled_from([True] * 4 + [False]), "image holds the filter"):
        h, w = max(h, (kh - 1) * dilation + 1 - 2 * pad_h), max(w, (kw - 1) * dilation + 1 - 2 * pad_w)
    batch = data.draw(st.integers(1, 8), "batch")
    # Shrink the image, then the batch, while they take the call past the budget (an 8x8 image of one batch
    # stays: under 2**30 multiply-adds with these channels and filters).
    while batch * c_out * h * w * (c_in // groups) * kh * kw > MAX_CONV_MACS and (h * w > 64 or batch > 1):
        if h * w > 64:
            h, w = max(1, h // 2), max(1, w // 2)
        else:
            batch //= 2
    return {"batch": batch, "c_in": c_in, "h": h, "w": w, "c_out": c_out, "kernel": (kh, kw),
            "conv": {"stride": data.draw(st.sampled_from([1, 1, 2]), "stride"), "padding": padding,
                     "dilation": dilation, "groups": groups}}


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32], ids=str)
@FUZZ
@given(data=st.data())
def test_conv2d_bn_silu_at_gpu_scale(data, dtype):
    """A CNN's layers, NCHW or channels-last, on the kernel and tile conv2d_bn_silu picks (tuned per layer): the
    direct kernel, the implicit GEMM, split-K over few pixels. First call and replay, each into NaN, every input
    (the batch norm's statistics included) refilled in between. A filter larger than the padded image is refused
    as a ShapeError naming the output."""
    from tilelab.ops import conv as conv_op

    generator = torch.Generator().manual_seed(data.draw(st.integers(0, 2**31 - 1), "seed"))
    layer = draw_layer(data)
    conv = layer["conv"]
    x, weight, bias, params = conv_tests.make_problem(
        layer["batch"], layer["c_in"], layer["h"], layer["w"], layer["c_out"], layer["kernel"], dtype, "cuda",
        generator, affine=data.draw(st.booleans(), "affine"), conv_bias=data.draw(st.booleans(), "conv bias"),
        groups=conv["groups"])
    if data.draw(st.booleans(), "channels last"):
        x = x.to(memory_format=torch.channels_last)
    label = f"{tuple(x.shape)} {x.stride()} -> {layer['c_out']}, kernel {layer['kernel']}, {conv}, {dtype}"

    def run():
        return tilelab.conv2d_bn_silu(x, weight, bias, **params, **conv)

    try:
        with poisoned_allocations():
            first = run()
    except tilelab.ShapeError as error:
        assert "output" in str(error), f"{label}: {error}"
        event("refused: no output pixels")
        return
    plan = conv_op.describe_plan(x, weight, bias, **params, **conv)
    event(f"ran {plan['path']}{', split-K' if plan['config'].get('split_k', 1) > 1 else ''}")
    conv_tests.assert_matches(first, x, weight, bias, params, label=label, **conv)

    fan_in = weight[0].numel()
    x.copy_(randn(tuple(x.shape), dtype, "cuda", generator))
    weight.copy_(randn(tuple(weight.shape), dtype, "cuda", generator) / fan_in ** 0.5)
    for name, t in params.items():
        if t is not None:
            t.copy_(randn(tuple(t.shape), t.dtype, "cuda", generator).abs() + 0.5 if name == "running_var"
                    else randn(tuple(t.shape), t.dtype, "cuda", generator))
    if bias is not None:
        bias.copy_(randn(tuple(bias.shape), bias.dtype, "cuda", generator))
    with poisoned_allocations():
        replayed = run()
    conv_tests.assert_matches(replayed, x, weight, bias, params, label=f"{label}, replayed", **conv)
