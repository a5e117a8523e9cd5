"""`tilelab.ops.linear.linear` on Triton's interpreter: activation(x @ weight.T + bias) fused into the matmul kernels.

Every result is held to a float64 reference written here (F.linear and the activation on the CPU), on fresh
random inputs, with every output buffer poisoned with NaN first (`poisoned_outputs`): an element the kernel
forgets stays NaN. fp16/fp32 only: the interpreter's bf16 dot is unreliable (tests/gpu covers bf16).
"""

import dataclasses

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from tests.helpers import interpreter_plan_only, randn
from tilelab import contracts, tuning
from tilelab.ops import bound_launch, matmul_pingpong, matmul_plan
from tilelab.ops import linear as linear_op
from tilelab.ops import matmul as matmul_op
from tilelab.ops.linear import describe_linear, linear
from tilelab.ops.matmul_hopper import HopperConfig
from tilelab.reference import relative_error, tolerance

pytestmark = pytest.mark.usefixtures("poisoned_outputs")

ACTIVATIONS = [None, "relu", "gelu", "silu"]
RAGGED = [(1, 1, 1), (7, 65, 127), (65, 127, 7), (127, 255, 65), (255, 7, 1), (1, 255, 255)]
# The TMA paths need rows on 16 bytes: K a multiple of 8 in fp16 (x's rows and weight's rows are K long). N
# stays ragged: the bias is masked at N, and C's columns past N are dropped.
ALIGNED = [(1, 1, 8), (7, 65, 128), (65, 127, 8), (127, 255, 64), (255, 7, 16), (1, 255, 256)]


def reference(x, weight, bias, activation, *, pre_activation=False):
    """activation(F.linear(x, weight, bias)) in float64 on the inputs' device (their exact values; on a GPU, the
    large shapes of tests/gpu/test_linear_gpu.py would take minutes on the CPU); with pre_activation, F.linear
    alone."""
    def f64(t):
        return None if t is None else t.detach().to(torch.float64)

    return _activate(F.linear(f64(x), f64(weight), f64(bias)), None if pre_activation else activation)


def _activate(y, activation):
    return {None: y, "relu": F.relu(y), "gelu": F.gelu(y), "silu": F.silu(y)}[activation]


def check(out, x, weight, bias, activation, precision=None, label=""):
    """The error ||out - ref|| measured against the norm of the terms' magnitudes, ||abs(x) @ abs(W).T + abs(b)||:
    a sum in floating point errs in proportion to the sizes of what it adds, and relu, gelu and silu move an
    error by at most 1.13x its size. Measured against the output itself, a sum that cancels (one element of
    1x1x1 whose x * w nearly equals -b; gelu(-7) = -4e-12, which the erf form computes as -0 in float32, as
    torch's float32 gelu does) would count as a large relative error from correct rounding."""
    ref = reference(x, weight, bias, activation)
    assert tuple(out.shape) == tuple(ref.shape), f"{label}: shape {tuple(out.shape)}, expected {tuple(ref.shape)}"
    assert out.dtype == x.dtype, f"{label}: dtype {out.dtype}"
    out64 = out.detach().to(torch.float64)
    assert torch.isfinite(out64).all(), f"{label}: NaN or inf in the output (an element never written?)"
    magnitudes = [None if t is None else t.abs() for t in (x, weight, bias)]
    scale = reference(*magnitudes, activation, pre_activation=True).norm().item()
    err = (out64 - ref).norm().item() / (scale or 1.0)
    allowed = tolerance(x.dtype, precision)
    assert err <= allowed, f"{label}: error {err:.3e} of the terms' magnitudes > {allowed:.1e}"


def operands(m, n, k, dtype, device, rng, *, bias=True, lead=()):
    x = randn((*lead, m, k), dtype, device, rng)
    weight = randn((n, k), dtype, device, rng)
    b = randn((n,), dtype, device, rng) if bias else None
    return x, weight, b


def _precision(dtype):
    return "ieee" if dtype == torch.float32 else None


# -- every path, every shape, every activation -------------------------------------------------------------


@pytest.mark.parametrize("m,n,k", RAGGED)
@pytest.mark.parametrize("dtype", [torch.float16, torch.float32])
def test_pointer_path_on_ragged_shapes(m, n, k, dtype, device, rng):
    for activation in ACTIVATIONS:
        x, weight, bias = operands(m, n, k, dtype, device, rng)
        out = linear(x, weight, bias, activation=activation, precision=_precision(dtype), path="pointer")
        check(out, x, weight, bias, activation, _precision(dtype), f"pointer {m}x{n}x{k} {activation}")


@pytest.mark.parametrize("path", ["descriptor", "persistent"])
@pytest.mark.parametrize("m,n,k", ALIGNED)
@pytest.mark.parametrize("dtype", [torch.float16, torch.float32])
def test_tma_paths_on_ragged_shapes(path, m, n, k, dtype, device, rng):
    for activation in ACTIVATIONS:
        x, weight, bias = operands(m, n, k, dtype, device, rng)
        out = linear(x, weight, bias, activation=activation, precision=_precision(dtype), path=path)
        assert describe_linear(x, weight, bias, activation=activation, path=path)["path"] == path
        check(out, x, weight, bias, activation, _precision(dtype), f"{path} {m}x{n}x{k} {activation}")


@pytest.mark.parametrize("path", [None, "pointer", "descriptor", "persistent", "splitk"])
@pytest.mark.parametrize("activation", ACTIVATIONS)
@pytest.mark.parametrize("with_bias", [True, False])
def test_every_activation_with_and_without_bias(path, activation, with_bias, device, rng, poisoned_outputs):
    # 3-D x: its leading dimensions fold into the rows of one GEMM.
    x, weight, bias = operands(33, 72, 40, torch.float16, device, rng, bias=with_bias, lead=(3,))
    out = linear(x, weight, bias, activation=activation, path=path)
    check(out, x, weight, bias, activation, label=f"{path} {activation} bias={with_bias}")
    if bias is None and activation is None:
        return  # a plain matmul
    storage = poisoned_outputs[-1]._base
    if storage is not None:  # TMA paths: rows padded to 16 bytes, which stay untouched here
        assert storage[..., 72:].isnan().all(), "the epilogue wrote into the row padding"


@pytest.mark.parametrize("precision", ["ieee", "tf32", "tf32x3"])
@pytest.mark.parametrize("path", ["pointer", "descriptor"])
def test_float32_precisions(precision, path, device, rng):
    for activation in ACTIVATIONS:
        x, weight, bias = operands(37, 72, 48, torch.float32, device, rng)
        out = linear(x, weight, bias, activation=activation, precision=precision, path=path)
        check(out, x, weight, bias, activation, precision, f"{path} {precision} {activation}")


def test_activation_sees_the_biased_accumulator(device, rng):
    """A bias that moves most pre-activations across 0: relu and silu differ from applying them to x @ W.T
    alone, so a bias added after the activation (or lost) fails the reference."""
    x, weight, _ = operands(40, 48, 32, torch.float32, device, rng)
    for sign in (-1, 1):
        bias = sign * (4.0 + randn((48,), torch.float32, device, rng).abs())
        for activation in ("relu", "silu", "gelu"):
            out = linear(x, weight, bias, activation=activation, precision="ieee", path="pointer")
            check(out, x, weight, bias, activation, "ieee", f"bias {sign:+d} {activation}")


@pytest.mark.parametrize("path", ["pointer", "descriptor", "persistent", "splitk"])
def test_the_bias_is_read_only_within_its_n_elements(path, device, rng, monkeypatch):
    """Columns past N are dropped when C is stored, so a bias read past N changes no result: it reads memory
    that is not the bias (out of bounds at the end of an allocation). Every enabled lane of every masked load
    is recorded here (the interpreter's loads), with the bias in the middle of a longer buffer: none may
    touch the guard regions around it."""
    if device != "cpu":
        pytest.skip("records the interpreter's loads")
    from triton.runtime import interpreter

    reads = []
    real = interpreter.InterpreterBuilder.create_masked_load

    def recording(self, ptrs, mask, other, *args, **kwargs):
        reads.append(ptrs.data[np.broadcast_to(mask.data, ptrs.data.shape)].astype(np.uint64))
        return real(self, ptrs, mask, other, *args, **kwargs)

    monkeypatch.setattr(interpreter.InterpreterBuilder, "create_masked_load", recording)
    guard = 256
    x, weight, _ = operands(40, 100, 32, torch.float32, device, rng)  # N = 100: the last 32x64 tile is ragged
    buffer = randn((guard + 100 + guard,), torch.float32, device, rng)
    bias = buffer[guard:guard + 100]
    out = linear(x, weight, bias, activation="relu", precision="ieee", path=path)
    check(out, x, weight, bias, "relu", "ieee", path)
    lanes = np.concatenate(reads)
    start, stop = bias.data_ptr(), bias.data_ptr() + 100 * 4
    in_buffer = (lanes >= buffer.data_ptr()) & (lanes < buffer.data_ptr() + buffer.numel() * 4)
    assert in_buffer.any(), "no load of the bias recorded"
    outside = lanes[in_buffer & ((lanes < start) | (lanes >= stop))]
    assert outside.size == 0, f"{outside.size} lanes read past the bias's {100} elements"


# -- operand layouts ---------------------------------------------------------------------------------------


def test_one_dimensional_x(device, rng):
    x, weight, bias = randn((24,), torch.float32, device, rng), *operands(1, 40, 24, torch.float32, device, rng)[1:]
    out = linear(x, weight, bias, activation="gelu", precision="ieee")
    assert out.shape == (40,)
    check(out, x, weight, bias, "gelu", "ieee")


@pytest.mark.parametrize("path", ["pointer", "descriptor", "persistent", "splitk"])
def test_four_dimensional_x_and_a_batch_that_does_not_fold(path, device, rng):
    weight = randn((56, 32), torch.float16, device, rng)
    bias = randn((56,), torch.float16, device, rng)
    x = randn((2, 3, 17, 32), torch.float16, device, rng)
    check(linear(x, weight, bias, activation="silu", path=path), x, weight, bias, "silu", label="4-D x")
    # x's batch dimensions transposed: rows of different matrices are not one [rows, K] matrix.
    xt = randn((17, 3, 32), torch.float16, device, rng).transpose(0, 1)
    check(linear(xt, weight, bias, activation="relu", path=path), xt, weight, bias, "relu", label="transposed x")


def test_weight_transposed_view_and_strided_bias(device, rng):
    # weight given as the transpose of a [K, N] tensor: B = weight.T is then row-major. The bias, every other
    # element of a longer tensor, is copied contiguous for the kernel.
    weight = randn((48, 72), torch.float32, device, rng).t()
    bias = randn((144,), torch.float32, device, rng)[::2]
    x = randn((20, 48), torch.float32, device, rng)
    for path in ("pointer", "descriptor"):
        out = linear(x, weight, bias, activation="gelu", precision="ieee", path=path)
        check(out, x, weight, bias, "gelu", "ieee", path)


@pytest.mark.parametrize("bias_dtype", [torch.float16, torch.bfloat16, torch.float32])
def test_bias_of_another_dtype_is_read_as_float32(bias_dtype, device, rng):
    x, weight, _ = operands(30, 40, 24, torch.float16, device, rng)
    bias = randn((40,), bias_dtype, device, rng)
    out = linear(x, weight, bias, activation="silu")
    assert out.dtype == torch.float16
    check(out, x, weight, bias, "silu")


# -- the persistent kernel's loop and flags ----------------------------------------------------------------


@pytest.mark.parametrize("subtile", [False, True])
@pytest.mark.parametrize("warp_specialize", [False, True])
@pytest.mark.parametrize("flatten", [False, True])
def test_persistent_flags_keep_the_epilogue(subtile, warp_specialize, flatten, device, rng):
    # Many more tiles (3 x 4 of 32 x 32) than the interpreter's persistent programs: each program's epilogue
    # must take its own tile's columns of the bias. Subtiled, the epilogue's tile is stored in halves.
    config = HopperConfig(32, 32, 16, group_m=2, num_warps=4, num_stages=1, epilogue_subtile=subtile,
                          warp_specialize=warp_specialize, flatten=flatten)
    x, weight, bias = operands(70, 100, 48, torch.float16, device, rng)
    for activation in ("gelu", "relu"):
        out = linear(x, weight, bias, activation=activation, path="persistent", config=config)
        check(out, x, weight, bias, activation, label=config.label())


@pytest.mark.parametrize("config", ["fixed", tuning.Config(16, 32, 16, group_m=1, num_warps=4, num_stages=1)])
@pytest.mark.parametrize("path", ["pointer", "descriptor"])
def test_named_and_explicit_configs(config, path, device, rng):
    x, weight, bias = operands(50, 90, 40, torch.float32, device, rng)
    out = linear(x, weight, bias, activation="relu", precision="ieee", path=path, config=config)
    check(out, x, weight, bias, "relu", "ieee", f"{path} {config}")


# -- split-K: the epilogue on the slices' sum --------------------------------------------------------------

# M, N, K: ragged, with K cut into several slices of the interpreter's 32-wide K steps (300: 10 steps), a K
# shorter than a slice's share (65, 1: slices left empty), one row, one column.
SPLIT_RAGGED = [(7, 65, 300), (1, 127, 255), (127, 255, 65), (1, 1, 1), (33, 1, 100)]
# From 256 rows of C, with rows on 16 bytes (K a multiple of 8 in fp16), split-K reads through host-built
# descriptors (`split_k_reads_through_tma`); N stays ragged.
SPLIT_TMA = [(257, 65, 64), (300, 7, 136)]


def _split_k_launches(monkeypatch):
    """The keyword arguments of every `_launch_split_k` call (the descriptor kernel's layouts, the epilogue)."""
    from tilelab.ops import matmul_hopper

    launches = []
    real = matmul_hopper._launch_split_k

    def spy(*args, **kwargs):
        launches.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(matmul_hopper, "_launch_split_k", spy)
    return launches


@interpreter_plan_only("tests/gpu/test_linear_gpu.py::test_forced_split_k_with_every_split")
@pytest.mark.parametrize("m,n,k", SPLIT_RAGGED)
@pytest.mark.parametrize("dtype", [torch.float16, torch.float32])
def test_split_k_path_on_ragged_shapes(m, n, k, dtype, device, rng, monkeypatch):
    launches = _split_k_launches(monkeypatch)
    for activation in ACTIVATIONS:
        x, weight, bias = operands(m, n, k, dtype, device, rng)
        out = linear(x, weight, bias, activation=activation, precision=_precision(dtype), path="splitk")
        described = describe_linear(x, weight, bias, activation=activation, path="splitk")
        assert described["path"] == "splitk" and described["config"]["split_k"] == 2, described
        check(out, x, weight, bias, activation, _precision(dtype), f"splitk {m}x{n}x{k} {activation}")
    assert len(launches) == len(ACTIVATIONS)
    assert all(kw["epilogue"] is not None and "a_layout" not in kw for kw in launches), "not the pointer kernel"


@interpreter_plan_only("tests/gpu/test_linear_gpu.py::test_forced_split_k_with_every_split")
@pytest.mark.parametrize("m,n,k", SPLIT_TMA)
@pytest.mark.parametrize("dtype", [torch.float16, torch.float32])
def test_split_k_through_tma_on_ragged_shapes(m, n, k, dtype, device, rng, monkeypatch):
    launches = _split_k_launches(monkeypatch)
    for activation in ACTIVATIONS:
        x, weight, bias = operands(m, n, k, dtype, device, rng)
        out = linear(x, weight, bias, activation=activation, precision=_precision(dtype), path="splitk")
        check(out, x, weight, bias, activation, _precision(dtype), f"splitk-tma {m}x{n}x{k} {activation}")
    assert len(launches) == len(ACTIVATIONS)
    assert all("a_layout" in kw and kw["epilogue"] is not None for kw in launches), "not the descriptor kernel"


@pytest.mark.parametrize("split_k", [1, 2, 3, 4])
@pytest.mark.parametrize("m,n,k", [(7, 65, 300), (20, 33, 40), (256, 40, 48)])
def test_split_k_explicit_configs(split_k, m, n, k, device, rng):
    """An explicit `HopperConfig` gives the tiles and the number of slices: 1 (each program writes C), or a split
    whose last slice sums and writes C; K = 40 in 16-wide steps is 3 steps, so 4 slices leave one empty."""
    config = HopperConfig(16, 32, 16, group_m=2, num_warps=4, num_stages=1, epilogue_subtile=False,
                          split_k=split_k)
    for dtype in (torch.float16, torch.float32):
        for activation in ("gelu", "silu", "relu"):
            x, weight, bias = operands(m, n, k, dtype, device, rng)
            out = linear(x, weight, bias, activation=activation, precision=_precision(dtype), path="splitk",
                         config=config)
            assert describe_linear(x, weight, bias, activation=activation, path="splitk",
                                   config=config)["config"]["split_k"] == split_k
            check(out, x, weight, bias, activation, _precision(dtype), f"{config.label()} {dtype} {activation}")


@pytest.mark.parametrize("descriptors", [False, True])
def test_split_k_partials_stay_plain_products(descriptors, device, rng):
    """The epilogue applies to the slices' sum, never to a partial: the workspace's planes still add up to
    x @ weight.T alone (a bias or relu applied per slice would add the bias 3 times, or clip each partial),
    and C is relu(sum + bias)."""
    from tilelab.ops.matmul_hopper import launch_split_k
    from tilelab.ops.matmul_plan import operand_layout

    m, n, k = 40, 48, 96
    x, weight, bias = operands(m, n, k, torch.float32, device, rng)
    a3, b3 = x[None], weight.mT[None]
    c = torch.full((1, m, n), float("nan"), dtype=torch.float32, device=device)
    config = HopperConfig(16, 32, 16, group_m=2, num_warps=4, num_stages=1, epilogue_subtile=False, split_k=3)
    layouts = {"a_layout": operand_layout(a3), "b_layout": operand_layout(b3)} if descriptors else {}
    workspace = launch_split_k(a3, b3, c, m, n, k, "ieee", config, **layouts, epilogue=(bias, "relu"))
    product = x.double().cpu() @ weight.double().cpu().T
    assert relative_error(workspace[0].double().sum(0).cpu(), product) < 1e-6
    assert (workspace < 0).any(), "relu applied to a partial"
    check(c[0], x, weight, bias, "relu", "ieee", "launch_split_k with an epilogue")


@pytest.mark.parametrize("path", ["splitk", "splitk-descriptor"])
@pytest.mark.parametrize("dtype", [torch.float16, torch.float32])
def test_split_k_replays_pass_workspace_counters_and_each_calls_bias(path, dtype, device, rng, monkeypatch):
    """Replays are recorded on a GPU only; here they are recorded anyway (`_replay_key` and `_replayable`
    allowed) and the bound launches (`bind_launch`, `bind_descriptor_launch`) run the kernel on the
    interpreter with the addresses the replay passes, resolved back to tensors: x, weight, C's fresh storage,
    a fresh workspace, the stream's tile counters, the recorded middle arguments, this call's bias. A replay
    that passed the first call's bias, or misplaced an argument, fails the float64 reference."""
    if device != "cpu":
        pytest.skip("resolves the interpreter's addresses; tests/gpu replays on the GPU")
    from triton.tools.tensor_descriptor import TensorDescriptor

    from tilelab.kernels.matmul_splitk import matmul_splitk_descriptor_kernel, matmul_splitk_kernel
    from tilelab.ops import matmul_hopper

    kernel = matmul_splitk_kernel if path == "splitk" else matmul_splitk_descriptor_kernel
    m, n, k = (7, 65, 300) if path == "splitk" else (257, 65, 64)
    tensors = []
    real_new_empty = torch.Tensor.new_empty

    def new_empty(self, *args, **kwargs):  # the replay's output storage and workspace, poisoned
        made = real_new_empty(self, *args, **kwargs)
        if "dtype" in kwargs:  # the replay's calls (the interpreter's own, copying arguments, give none)
            made.fill_(float("nan"))
            tensors.append(made)
        return made

    def resolve(address):
        known = {t.data_ptr(): t for t in [*tensors, *matmul_hopper._SPLIT_K_COUNTERS.values()]}
        return known.get(address, address)

    replayed = []

    def bind_launch(compiled, grid, tail_args):
        def launch(stream, *pointers):
            replayed.append(pointers)
            kernel[grid](*map(resolve, pointers), *tail_args)
        return launch

    def bind_descriptor_launch(compiled, grid, tail_args, descriptors):
        def launch(stream, *addresses):
            replayed.append(addresses)
            described = [TensorDescriptor(resolve(address), d.shape, d.strides, d.block_shape)
                         for address, d in zip(addresses, descriptors, strict=False)]
            kernel[grid](*described, *map(resolve, addresses[len(descriptors):]), *tail_args)
        return launch

    monkeypatch.setattr(matmul_op, "_REPLAYS", {})
    monkeypatch.setattr(matmul_op, "_replayable", lambda *args: True)
    monkeypatch.setattr(bound_launch, "stream_getter", lambda: (lambda index: 0))
    monkeypatch.setattr(bound_launch, "bind_launch", bind_launch)
    monkeypatch.setattr(bound_launch, "bind_descriptor_launch", bind_descriptor_launch)
    monkeypatch.setattr(linear_op, "_replay_key", lambda x, weight, bias, activation, *rest: (
        "linear", tuple(x.shape), bias is None, activation))
    monkeypatch.setattr(torch.Tensor, "new_empty", new_empty)
    full = []
    real_plan = matmul_op._launch_plan

    def counting(*args, **kwargs):
        full.append(kwargs.get("epilogue"))
        return real_plan(*args, **kwargs)

    monkeypatch.setattr(matmul_op, "_launch_plan", counting)

    x, weight, bias = operands(m, n, k, dtype, device, rng)
    tensors.extend((x, weight, bias))
    check(linear(x, weight, bias, activation="gelu", precision=_precision(dtype), path="splitk"), x, weight, bias,
          "gelu", _precision(dtype), "first call")
    biases = [bias]
    (replay,) = matmul_op._REPLAYS.values()
    assert isinstance(replay, linear_op._LinearReplay) and replay.split_k is not None
    assert len(full) == 1 and not replayed
    for again in range(3):  # a new bias elsewhere, new values in the same bias, new x, weight and bias
        if again == 1:
            bias.copy_(randn((n,), dtype, device, rng))
        else:
            x, weight, bias = operands(m, n, k, dtype, device, rng)
        tensors.extend((x, weight, bias))
        biases.append(bias)
        out = linear(x, weight, bias, activation="gelu", precision=_precision(dtype), path="splitk")
        check(out, x, weight, bias, "gelu", _precision(dtype), f"replay {again}")
    assert len(full) == 1 and len(replayed) == 3, "a replayed call went through the full path"
    # Every kernel parameter but the trailing ACTIVATION (the bound tail): pointers, middle, this call's bias.
    assert all(len(pointers) + 1 == len(kernel.arg_names) for pointers in replayed)
    assert [pointers[-1] for pointers in replayed] == [b.data_ptr() for b in biases[1:]]
    assert len({b.data_ptr() for b in biases}) == 3  # the first call's, then two more
    counters = matmul_hopper.split_k_counters(torch.device(device), 1)
    assert replayed[-1][4] == counters.data_ptr() and not counters.any(), "counters not left at zero"


# -- planning: the paths without an epilogue give way ------------------------------------------------------


def _pretend(monkeypatch, planned_path, config=None):
    """plan_matmul planning `planned_path` when linear leaves the path open (as it may on a Hopper GPU)."""
    real = matmul_plan.plan_matmul

    def plan(a3, b3, path, precision, cfg):
        planned = real(a3, b3, path, precision, cfg)
        if path is None:
            return dataclasses.replace(planned, path=planned_path, config=config or planned.config)
        return planned

    monkeypatch.setattr(matmul_plan, "plan_matmul", plan)


def test_the_registers_kernel_replans_on_the_persistent_kernel(monkeypatch, device, rng):
    _pretend(monkeypatch, "registers")
    x, weight, bias = operands(40, 48, 32, torch.float16, device, rng)
    assert describe_linear(x, weight, bias, activation="relu")["path"] == "persistent"
    check(linear(x, weight, bias, activation="relu"), x, weight, bias, "relu", label="registers")


def test_plan_linear_keeps_a_pingpong_plan(monkeypatch, device, rng):
    """The pingpong kernel has the epilogue: where the matmul would take it, linear does too (it runs only on a
    Hopper GPU: tests/gpu/test_linear_gpu.py launches it)."""
    _pretend(monkeypatch, "pingpong")
    x, weight, bias = operands(40, 48, 32, torch.float16, device, rng)
    plan, _ = linear_op.plan_linear(matmul_op._as_gemm(x, weight.mT), None, None, None)
    assert plan.path == "pingpong"
    described = describe_linear(x, weight, bias, activation="gelu")
    assert described["path"] == "pingpong"
    assert described["config"] == matmul_pingpong.config_for(torch.float16).as_dict()


@pytest.mark.parametrize("k", [32, 7])  # TMA-usable rows or not: split-K reads through pointers either way here
def test_plan_linear_keeps_a_split_k_plan(k, monkeypatch, device, rng):
    """Split-K has the epilogue: where the matmul would split K (a skinny problem on a GPU), linear splits too,
    with the matmul's tiles and slices, and the epilogue goes to the split-K launch."""
    config = HopperConfig(16, 32, 16, group_m=2, num_warps=4, num_stages=1, epilogue_subtile=False, split_k=3)
    _pretend(monkeypatch, "splitk", config)
    launches = _split_k_launches(monkeypatch)
    x, weight, bias = operands(40, 48, k, torch.float16, device, rng)
    plan, _ = linear_op.plan_linear(matmul_op._as_gemm(x, weight.mT), None, None, None)
    assert plan.path == "splitk" and plan.config == config
    described = describe_linear(x, weight, bias, activation="gelu")
    assert described["path"] == "splitk" and described["config"]["split_k"] == 3, described
    check(linear(x, weight, bias, activation="gelu"), x, weight, bias, "gelu", label="split-K kept")
    assert len(launches) == 1 and launches[0]["epilogue"][1] == "gelu"


def test_a_wide_tile_replans_too(monkeypatch, device, rng):
    _pretend(monkeypatch, "descriptor", tuning.WIDE_CANDIDATES[0])
    x, weight, bias = operands(40, 48, 32, torch.float16, device, rng)
    assert describe_linear(x, weight, bias, activation="silu")["path"] == "persistent"


def test_operands_tma_cannot_read_replan_on_the_pointer_kernel(monkeypatch, device, rng):
    # K = 7 fp16: 14-byte rows, which neither the persistent nor the descriptor kernel can take.
    _pretend(monkeypatch, "registers")
    x, weight, bias = operands(40, 48, 7, torch.float16, device, rng)
    assert describe_linear(x, weight, bias, activation="gelu")["path"] == "pointer"
    check(linear(x, weight, bias, activation="gelu"), x, weight, bias, "gelu", label="pointer fallback")


def test_a_tuned_wide_tile_gives_way_to_its_power_of_two_part(monkeypatch, device, rng):
    """Where the tuner hands the descriptor path a wide tile (its kernel has no epilogue), linear launches the
    tile's 2/3 part: 128x192 -> 128x128 here (the interpreter plans a fixed tile, so `plan_matmul` leaves the
    config to the tuner as on a GPU)."""
    real = matmul_plan.plan_matmul
    monkeypatch.setattr(matmul_plan, "plan_matmul",
                        lambda *args: dataclasses.replace(real(*args), config=None))
    monkeypatch.setattr(tuning, "choose", lambda key, candidates, launch, **kw: tuning.WIDE_CANDIDATES[0])
    launched = []
    real_launch = matmul_op._launch

    def spy(plan, config, *args):
        launched.append(config)
        return real_launch(plan, config, *args)

    monkeypatch.setattr(matmul_op, "_launch", spy)
    x, weight, bias = operands(20, 150, 32, torch.float16, device, rng)
    out = linear(x, weight, bias, activation="gelu", path="descriptor")
    assert [(c.block_m, c.block_n) for c in launched] == [(128, 128)]
    check(out, x, weight, bias, "gelu", label="narrowed wide tile")


@pytest.mark.parametrize("path", ["pointer", "descriptor", "persistent", "splitk", "splitk-descriptor"])
@pytest.mark.parametrize("fused", [False, True])
def test_every_replay_passes_every_kernel_parameter(path, fused, device, rng, monkeypatch):
    """A replay (`bind_launch`) hands its arguments to the C launcher Triton built, which takes every parameter,
    constexprs included. A matmul launch leaves the epilogue's parameters to Triton's binder (its arguments are
    what they were before linear), so the arguments its replay keeps must add their defaults; a linear launch
    passes them itself (`_LinearReplay` keeps all but A, B, C, split-K's workspace and counters, and the bias).
    Split-K's replays pass A, B, C, the workspace and the counters before the arguments they keep."""
    from tilelab.kernels.matmul import matmul_descriptor_kernel, matmul_pointer_kernel
    from tilelab.kernels.matmul_persistent import matmul_persistent_kernel
    from tilelab.kernels.matmul_splitk import matmul_splitk_descriptor_kernel, matmul_splitk_kernel

    kernel = {"pointer": matmul_pointer_kernel, "descriptor": matmul_descriptor_kernel,
              "persistent": matmul_persistent_kernel, "splitk": matmul_splitk_kernel,
              "splitk-descriptor": matmul_splitk_descriptor_kernel}[path]
    pointers = 5 if path.startswith("splitk") else 3
    rows = 256 if path == "splitk-descriptor" else 20  # split-K reads through TMA from 256 rows
    recorded = []
    real = matmul_op._launch_plan

    def recording(*args, **kwargs):
        result = real(*args, **kwargs)
        recorded.append(result)
        return result

    monkeypatch.setattr(matmul_op, "_launch_plan", recording)
    x, weight, bias = operands(rows, 24, 16, torch.float16, device, rng)
    op_path = "splitk" if path.startswith("splitk") else path
    if fused:
        linear(x, weight, bias, activation="gelu", path=op_path)
    else:
        matmul_op.matmul(x, weight.mT, path=op_path)
    ((_, _, args, tail_args, split_k),) = recorded
    assert (split_k is not None) == path.startswith("splitk")
    if path == "splitk-descriptor":
        assert hasattr(args[0], "block_shape") and hasattr(args[1], "block_shape"), "not the descriptor kernel"
    if fused:
        assert len(args) == len(kernel.arg_names) and args[-2:] == (bias, "gelu")
    else:
        assert len(args) == len(kernel.arg_names) - 2, "a matmul launch's arguments changed"
        assert pointers + len(tail_args) == len(kernel.arg_names) and tail_args[-2:] == (None, "")


# -- empty and degenerate sizes ----------------------------------------------------------------------------


@pytest.mark.parametrize("with_bias", [True, False])
def test_empty_sizes(with_bias, device, rng):
    weight = randn((5, 4), torch.float16, device, rng)
    bias = randn((5,), torch.float16, device, rng) if with_bias else None
    assert linear(torch.empty((0, 4), dtype=torch.float16, device=device), weight, bias,
                  activation="gelu").shape == (0, 5)
    assert linear(torch.empty((3, 0, 4), dtype=torch.float16, device=device), weight, bias).shape == (3, 0, 5)
    empty_weight = torch.empty((0, 4), dtype=torch.float16, device=device)
    no_bias = None if bias is None else bias[:0]
    assert linear(randn((3, 4), torch.float16, device, rng), empty_weight, no_bias,
                  activation="relu").shape == (3, 0)


@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_k_zero_gives_the_activation_of_the_bias(activation, device, rng):
    x = torch.empty((2, 3, 0), dtype=torch.float32, device=device)
    weight = torch.empty((6, 0), dtype=torch.float32, device=device)
    bias = randn((6,), torch.float32, device, rng)
    out = linear(x, weight, bias, activation=activation)
    assert out.shape == (2, 3, 6)
    check(out, x, weight, bias, activation, "ieee", "K=0")
    no_bias = linear(x, weight, None, activation=activation)
    assert torch.equal(no_bias, torch.zeros((2, 3, 6), dtype=torch.float32, device=device))


# -- contracts ---------------------------------------------------------------------------------------------


def _args(device, rng, **changes):
    x, weight, bias = operands(4, 6, 8, torch.float32, device, rng)
    return {"x": x, "weight": weight, "bias": bias, **changes}


@pytest.mark.parametrize("case,error,names", [
    ("x not a tensor", contracts.InputTypeError, "x"),
    ("weight not a tensor", contracts.InputTypeError, "weight"),
    ("bias not a tensor", contracts.InputTypeError, "bias"),
    ("weight 1-D", contracts.ShapeError, "weight"),
    ("weight 3-D", contracts.ShapeError, "weight"),
    ("x 0-D", contracts.ShapeError, "x"),
    ("K mismatch", contracts.ShapeError, "weight"),
    ("bias length", contracts.ShapeError, "bias"),
    ("bias 2-D", contracts.ShapeError, "bias"),
    ("bias integer", contracts.DTypeError, "bias"),
    ("bias float64", contracts.DTypeError, "bias"),
    ("x int", contracts.DTypeError, "x"),
    ("dtypes differ", contracts.DTypeError, "weight"),
    ("activation unknown", contracts.ContractError, "activation"),
    ("activation wrong case", contracts.ContractError, "activation"),
    ("precision unknown", contracts.ContractError, "precision"),
    ("precision for fp16", contracts.ContractError, "precision"),
    ("path without epilogue", contracts.ContractError, "path"),
    ("config unknown", contracts.ContractError, "config"),
    ("config wrong type", contracts.InputTypeError, "config"),
    ("config wide", contracts.ContractError, "block_n"),
    ("config not a power of two", contracts.ContractError, "block_m"),
])
def test_contract_errors_name_the_argument(case, error, names, device, rng):
    a = _args(device, rng)
    kwargs = {}
    if case == "x not a tensor":
        a["x"] = [[1.0] * 8]
    elif case == "weight not a tensor":
        a["weight"] = 3
    elif case == "bias not a tensor":
        a["bias"] = [0.0] * 6
    elif case == "weight 1-D":
        a["weight"] = a["weight"][0]
    elif case == "weight 3-D":
        a["weight"] = a["weight"][None]
    elif case == "x 0-D":
        a["x"] = a["x"][0, 0]
    elif case == "K mismatch":
        a["weight"] = randn((6, 9), torch.float32, device, rng)
    elif case == "bias length":
        a["bias"] = a["bias"][:5]
    elif case == "bias 2-D":
        a["bias"] = a["bias"][None]
    elif case == "bias integer":
        a["bias"] = torch.ones(6, dtype=torch.int32, device=device)
    elif case == "bias float64":
        a["bias"] = a["bias"].double()
    elif case == "x int":
        a["x"] = a["x"].int()
    elif case == "dtypes differ":
        a["weight"] = a["weight"].half()
    elif case == "activation unknown":
        kwargs["activation"] = "tanh"
    elif case == "activation wrong case":
        kwargs["activation"] = "GELU"
    elif case == "precision unknown":
        kwargs["precision"] = "fp64"
    elif case == "precision for fp16":
        a = {k: v.half() for k, v in a.items()}
        kwargs["precision"] = "ieee"
    elif case == "path without epilogue":
        kwargs["path"] = "registers"
    elif case == "config unknown":
        kwargs["config"] = "huge"
    elif case == "config wrong type":
        kwargs["config"] = 128
    elif case == "config wide":
        kwargs["config"] = tuning.WIDE_CANDIDATES[0]
    elif case == "config not a power of two":
        kwargs["config"] = tuning.Config(48, 64, 32)
    with pytest.raises(error) as raised:
        linear(a["x"], a["weight"], a["bias"], **kwargs)
    assert names in str(raised.value), str(raised.value)


def test_operands_on_different_devices_or_cpu_without_the_interpreter(device, rng, monkeypatch):
    a = _args(device, rng)
    if device == "cpu":
        monkeypatch.setenv("TRITON_INTERPRET", "0")  # contracts read it per call
        with pytest.raises(contracts.DeviceError, match="x is a CPU tensor"):
            linear(a["x"], a["weight"], a["bias"])
    else:
        with pytest.raises(contracts.DeviceError, match="bias on cpu"):
            linear(a["x"], a["weight"], a["bias"].cpu())


def test_a_forced_tma_path_on_unaligned_rows_is_an_alignment_error(device, rng):
    x, weight, bias = operands(8, 8, 7, torch.float16, device, rng)
    for path in ("descriptor", "persistent"):
        with pytest.raises(contracts.AlignmentError, match=f"path='{path}'"):
            linear(x, weight, bias, activation="relu", path=path)


# -- autograd ----------------------------------------------------------------------------------------------


def _float64_grads(x, weight, bias, activation, grad):
    leaves = [None if t is None else t.detach().double().requires_grad_() for t in (x, weight, bias)]
    y = _activate(F.linear(*leaves), activation)
    y.backward(grad.double())
    return [None if t is None else t.grad for t in leaves]


@pytest.mark.parametrize("activation", ACTIVATIONS)
@pytest.mark.parametrize("with_bias", [True, False])
def test_gradients_match_float64(activation, with_bias, device, rng):
    x, weight, bias = operands(19, 24, 20, torch.float32, device, rng, bias=with_bias, lead=(2,))
    leaves = [None if t is None else t.requires_grad_() for t in (x, weight, bias)]
    out = linear(*leaves, activation=activation, precision="ieee")
    assert out.requires_grad
    check(out, x, weight, bias, activation, "ieee", "forward under autograd")
    grad = randn(tuple(out.shape), torch.float32, device, rng)
    out.backward(grad)
    for got, want, name in zip((x.grad, weight.grad, None if bias is None else bias.grad),
                               _float64_grads(x, weight, bias, activation, grad), ("x", "weight", "bias"),
                               strict=True):
        if want is None:
            continue
        assert got is not None and got.shape == want.shape, name
        err = relative_error(got, want)
        assert err < 1e-5, f"d{name}: relative error {err:.2e}"


def test_only_what_requires_grad_gets_one_and_fp16_gradients_keep_their_dtypes(device, rng):
    x, weight, _ = operands(9, 12, 16, torch.float16, device, rng)
    bias = randn((12,), torch.float32, device, rng).requires_grad_()  # a float32 bias on fp16 operands
    weight.requires_grad_()
    out = linear(x, weight, bias, activation="silu")
    assert out.dtype == torch.float16
    grad = randn(tuple(out.shape), torch.float16, device, rng)
    out.backward(grad)
    assert x.grad is None
    assert weight.grad.dtype == torch.float16 and bias.grad.dtype == torch.float32
    _, want_w, want_b = _float64_grads(x, weight, bias, "silu", grad)
    assert relative_error(weight.grad, want_w) < 1e-2 and relative_error(bias.grad, want_b) < 1e-2


def test_no_grad_and_inference_mode_take_the_kernel_alone(device, rng):
    x, weight, bias = operands(9, 12, 16, torch.float32, device, rng)
    weight.requires_grad_()
    with torch.no_grad():
        out = linear(x, weight, bias, activation="relu", precision="ieee")
    assert not out.requires_grad
    with torch.inference_mode():
        out = linear(x, weight, bias, activation="relu", precision="ieee")
    check(out, x, weight, bias, "relu", "ieee")


def test_linear_module_matches(device, rng):
    """Against the layer it replaces: nn.Linear's own parameters, then GELU."""
    layer = torch.nn.Linear(40, 24).to(device)
    x = randn((3, 5, 40), torch.float32, device, rng)
    out = linear(x, layer.weight, layer.bias, activation="gelu", precision="ieee")
    check(out, x, layer.weight, layer.bias, "gelu", "ieee", "nn.Linear")
    out.sum().backward()
    assert layer.weight.grad is not None and layer.bias.grad is not None
    assert linear_op.ACTIVATIONS == ("relu", "gelu", "silu")


def test_the_path_error_lists_the_kernels_with_the_epilogue(device, rng):
    a = _args(device, rng)
    with pytest.raises(contracts.ContractError) as raised:
        linear(a["x"], a["weight"], a["bias"], activation="relu", path="registers")
    assert all(repr(path) in str(raised.value)
               for path in ("pointer", "descriptor", "persistent", "splitk", "pingpong"))
