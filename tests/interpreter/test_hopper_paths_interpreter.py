"""The Hopper kernels on Triton's interpreter: persistent loop, split-K reduction, fp8 scaling, scaled_matmul contracts.

The interpreter runs the same kernel code on the CPU, so the index
arithmetic (tile order, edges, K slices, scales) is checked here; speed and
the hardware paths (wgmma, TMA, warp specialization) are the GPU tests' job.
Small tiles keep tiles outnumbering the few persistent programs.
fp16/fp32 only: the interpreter's bf16 dot is unreliable.
"""

import pytest
import torch

import tilelab
from tests.helpers import randn
from tilelab.alignment import padded_row_stride
from tilelab.ops import matmul_hopper as hopper
from tilelab.ops import scaled_matmul as scaled_op
from tilelab.ops.matmul_hopper import HopperConfig, launch_persistent, launch_split_k, split_k_slices
from tilelab.ops.matmul_plan import operand_layout
from tilelab.ops.scaled_matmul import scaled_matmul, scaled_matmul_reference
from tilelab.reference import matmul_reference, relative_error, tolerance

SMALL = HopperConfig(32, 32, 16, group_m=2, num_warps=4, num_stages=1)
RAGGED = [(1, 1, 1), (5, 7, 5), (127, 255, 65), (65, 127, 33), (1, 255, 7), (130, 3, 17), (96, 64, 48)]


def _size(dtype) -> int:
    return torch.finfo(dtype).bits // 8


def padded(rows, cols, dtype, device, gen=None, *, fill=None):
    """[rows, cols] with rows padded to 16 bytes, as TMA needs; random unless `fill`."""
    width = padded_row_stride(cols, _size(dtype))
    if fill is not None:
        return torch.full((rows, width), fill, dtype=dtype, device=device)[:, :cols]
    return randn((rows, width), dtype, device, gen)[:, :cols]


def run_persistent(a3, b3, config, num_sms, *, out_dtype=None, precision="ieee"):
    """Launch into a NaN-poisoned padded output with a guard row below it; return c3.

    The row padding is scratch (TMA on the H200 writes whole 16-byte units into it); the guard row past M
    must stay NaN.
    """
    batch = max(a3.shape[0], b3.shape[0])
    m, k = a3.shape[1:]
    n = b3.shape[2]
    out_dtype = out_dtype or a3.dtype
    width = padded_row_stride(n, _size(out_dtype))
    storage = torch.full((batch, m + 1, width), float("nan"), dtype=out_dtype, device=a3.device)
    c3 = storage[:, :m, :n]
    a_l, b_l = operand_layout(a3), operand_layout(b3)
    assert a_l.tma_ok and b_l.tma_ok
    launch_persistent(a3, b3, c3, m, n, k, a_l, b_l, precision, config, num_sms)
    assert torch.isnan(storage[:, m]).all(), "the kernel wrote past the last row"
    return c3


def check(out, a, b, dtype, label, out_dtype=None):
    err = relative_error(out, matmul_reference(a, b))
    allowed = tolerance(dtype, "ieee", out_dtype)
    assert err <= allowed, f"{label}: relative error {err:.3e} > {allowed:.1e}"


# -- persistent ----------------------------------------------------------------------------------


@pytest.mark.parametrize("m,n,k", RAGGED)
@pytest.mark.parametrize("dtype", [torch.float16, torch.float32])
def test_persistent_ragged_shapes(m, n, k, dtype, device, rng):
    a = padded(m, k, dtype, device, rng)
    b = padded(k, n, dtype, device, rng)
    out = run_persistent(a[None], b[None], SMALL, num_sms=3)
    check(out[0], a, b, dtype, f"{m}x{n}x{k}")


@pytest.mark.parametrize("num_sms", [1, 2, 3, 5, 64])
@pytest.mark.parametrize("group_m", [1, 3, 8])
def test_persistent_more_tiles_than_programs(num_sms, group_m, device, rng):
    # 5 x 4 tiles of 16 x 16: each program visits tiles start, start + programs, ...;
    # a missed or doubled tile shows up as NaN or a wrong value.
    a = padded(80, 40, torch.float32, device, rng)
    b = padded(40, 64, torch.float32, device, rng)
    config = HopperConfig(16, 16, 16, group_m=group_m, num_warps=4, num_stages=1)
    out = run_persistent(a[None], b[None], config, num_sms=num_sms)
    check(out[0], a, b, torch.float32, f"{num_sms} programs, GROUP_M={group_m}")


def test_persistent_even_grid_covers_every_tile(device, rng):
    # 5 x 8 = 40 tiles on a budget of 21 programs: balanced_programs launches 20, two tiles each.
    from tilelab.ops.matmul_hopper import balanced_programs

    assert balanced_programs(40, 21) == 20
    a = padded(80, 40, torch.float32, device, rng)
    b = padded(40, 128, torch.float32, device, rng)
    config = HopperConfig(16, 16, 16, group_m=3, num_warps=4, num_stages=1)
    check(run_persistent(a[None], b[None], config, num_sms=21)[0], a, b, torch.float32, "20 programs of 2 tiles")


@pytest.mark.parametrize("subtile", [False, True])
@pytest.mark.parametrize("warp_specialize", [False, True])
@pytest.mark.parametrize("flatten", [False, True])
def test_persistent_flags_keep_results(subtile, warp_specialize, flatten, device, rng):
    # warp_specialize and flatten only change the compiled schedule; the interpreter checks
    # they leave the arithmetic alone. Subtiling changes the epilogue's stores: checked here.
    a = padded(70, 48, torch.float16, device, rng)
    b = padded(48, 100, torch.float16, device, rng)
    config = HopperConfig(32, 64, 16, group_m=2, num_warps=4, num_stages=1, epilogue_subtile=subtile,
                          warp_specialize=warp_specialize, flatten=flatten)
    check(run_persistent(a[None], b[None], config, num_sms=2)[0], a, b, torch.float16, config.label())


@pytest.mark.parametrize("a_k_major,b_k_major", [(True, False), (True, True), (False, False), (False, True)])
def test_persistent_transposed_operands(a_k_major, b_k_major, device, rng):
    m, n, k = 60, 72, 40
    a = padded(m, k, torch.float16, device, rng) if a_k_major else padded(k, m, torch.float16, device, rng).t()
    b = padded(n, k, torch.float16, device, rng).t() if b_k_major else padded(k, n, torch.float16, device, rng)
    a_l, b_l = operand_layout(a[None]), operand_layout(b[None])
    assert a_l.row_major == a_k_major and b_l.row_major == (not b_k_major)
    check(run_persistent(a[None], b[None], SMALL, num_sms=3)[0], a, b, torch.float16, f"A {a_k_major} B {b_k_major}")


@pytest.mark.parametrize("shared_b", [False, True])
def test_persistent_batches_on_grid_axis_1(shared_b, device, rng):
    batch, m, n, k = 3, 40, 48, 32
    a = randn((batch, m, k), torch.float32, device, rng)
    b = randn((1 if shared_b else batch, k, n), torch.float32, device, rng)
    b3 = b.expand(batch, k, n) if shared_b else b  # a broadcast B has batch stride 0
    out = run_persistent(a, b3, SMALL, num_sms=4)
    err = relative_error(out, torch.matmul(a.double(), b3.double()))
    assert err <= 2e-5, err


def test_persistent_grid_shares_sms_among_batches():
    plain, ws = hopper.PERSISTENT_CANDIDATES[0], hopper.PERSISTENT_CANDIDATES[3]
    assert ws.warp_specialize and not plain.warp_specialize
    assert hopper.persistent_grid(tiles=1000, batch=1, num_sms=132, config=plain) == (132, 1)
    assert hopper.persistent_grid(tiles=10, batch=1, num_sms=132, config=plain) == (10, 1)
    # host-built descriptors: every batch's tiles in one list (2000 tiles: 125 programs would idle 7 SMs)
    assert hopper.persistent_grid(tiles=1000, batch=2, num_sms=132, config=plain) == (132, 1)
    # descriptors built in the kernel: 66 SMs per batch; 63 programs still take at most 16 tiles each
    assert hopper.persistent_grid(tiles=1000, batch=2, num_sms=132, config=ws) == (63, 2)
    assert hopper.persistent_grid(tiles=1000, batch=500, num_sms=132, config=ws) == (1, 500)


@pytest.mark.parametrize("out_dtype", [torch.float32, torch.float16])
def test_persistent_output_dtype_comes_from_c(out_dtype, device, rng):
    a = padded(33, 40, torch.float16, device, rng)
    b = padded(40, 50, torch.float16, device, rng)
    out = run_persistent(a[None], b[None], SMALL, num_sms=2, out_dtype=out_dtype)
    assert out.dtype == out_dtype
    check(out[0], a, b, torch.float16, str(out_dtype), out_dtype=out_dtype)


# -- split-K -------------------------------------------------------------------------------------


def test_split_k_slices_cover_k_once():
    for k, block_k, split in [(1000, 128, 4), (65, 16, 3), (48, 16, 8), (1, 16, 2), (4096, 128, 16)]:
        slices = split_k_slices(k, block_k, split)
        assert len(slices) == split
        assert slices[0][0] == 0 and slices[-1][1] == k
        assert all(prev[1] == nxt[0] for prev, nxt in zip(slices, slices[1:], strict=False))
        assert all(start % block_k == 0 for start, stop in slices if stop > start)  # whole K steps


SPLIT_CASES = [
    # m, n, k, block_k, split_k: uneven last slice, empty slices, split larger than the K steps
    (16, 96, 100, 16, 3),
    (16, 64, 65, 16, 8),
    (37, 70, 48, 16, 2),
    (5, 7, 5, 16, 4),
    (33, 40, 200, 32, 5),
    (20, 48, 128, 32, 2),  # K a multiple of BLOCK_K: the unmasked (EVEN_K) loads
]


@pytest.mark.parametrize("m,n,k,block_k,split_k", SPLIT_CASES)
@pytest.mark.parametrize("dtype", [torch.float16, torch.float32])
@pytest.mark.parametrize("descriptors", [False, True])
def test_split_k_against_float64(m, n, k, block_k, split_k, dtype, descriptors, device, rng):
    if descriptors:  # 16-byte aligned rows, B stored [N, K] for variety
        a, b = padded(m, k, dtype, device, rng), padded(n, k, dtype, device, rng).t()
    else:
        a, b = randn((m, k), dtype, device, rng), randn((k, n), dtype, device, rng)
    c = torch.full((m, n), float("nan"), dtype=dtype, device=device)
    config = HopperConfig(16, 32, block_k, group_m=2, num_warps=4, num_stages=1, epilogue_subtile=False,
                          split_k=split_k)
    layouts = {"a_layout": operand_layout(a[None]), "b_layout": operand_layout(b[None])} if descriptors else {}
    assert all(layout.tma_ok for layout in layouts.values())
    workspace = launch_split_k(a[None], b[None], c[None], m, n, k, "ieee", config, **layouts)
    check(c, a, b, dtype, f"split {split_k} of K={k}")
    # Each plane holds exactly its slice's product (an empty slice: zeros).
    a64, b64 = a.double(), b.double()
    for s, (start, stop) in enumerate(split_k_slices(k, block_k, split_k)):
        plane = workspace[0, s].double()
        expected = a64[:, start:stop] @ b64[start:stop]
        assert torch.allclose(plane, expected, rtol=1e-2, atol=1e-2 * (stop - start) ** 0.5), f"slice {s}"


def test_split_k_strided_operands_and_batches(device, rng):
    # Pointer loads: any strides, a transposed A and a sliced B, 2 batches with B broadcast.
    batch, m, n, k = 2, 20, 30, 90
    a = randn((batch, k, m), torch.float32, device, rng).transpose(1, 2)
    b = randn((k, 2 * n), torch.float32, device, rng)[:, ::2].unsqueeze(0).expand(batch, k, n)
    c = torch.full((batch, m, n), float("nan"), dtype=torch.float32, device=device)
    config = HopperConfig(16, 16, 16, group_m=1, num_warps=4, num_stages=1, epilogue_subtile=False, split_k=3)
    launch_split_k(a, b, c, m, n, k, "ieee", config)
    assert relative_error(c, torch.matmul(a.double(), b.double())) <= 2e-5


@pytest.mark.parametrize("m,n,k,batch,dtype,align", [
    (24, 40, 56, 1, torch.float16, 8),  # every size and row a multiple of 8 elements, not 16; K ragged
    (33, 60, 100, 1, torch.float16, 4),
    (9, 6, 10, 3, torch.float16, 2),  # batched: the batch strides must be multiples too
    (17, 12, 36, 2, torch.float32, 4),  # 16 bytes is 4 float32 elements
])
def test_split_k_with_proven_alignment(m, n, k, batch, dtype, align, device, rng):
    # The kernel rewrites N, K and the strides as (x // ALIGN) * ALIGN: an ALIGN that does not divide them
    # would drop the last columns, rows or K steps, and the comparison would catch it.
    a = randn((batch, m, k), dtype, device, rng)
    b = randn((batch, k, n), dtype, device, rng)
    c = torch.full((batch, m, n), float("nan"), dtype=dtype, device=device)
    assert hopper.split_k_align(a, b, c, n, k) == align
    config = HopperConfig(16, 32, 16, group_m=2, num_warps=4, num_stages=1, epilogue_subtile=False, split_k=3)
    launch_split_k(a, b, c, m, n, k, "ieee", config)
    check(c, a, b, dtype, f"align {align}")


def test_split_k_align_needs_c_to_share_it(device, rng):
    a = randn((1, 24, 56), torch.float16, device, rng)
    b = randn((1, 56, 40), torch.float16, device, rng)
    assert hopper.split_k_align(a, b, torch.empty(1, 24, 40, dtype=torch.float16), 40, 56) == 8
    rows_of_44 = torch.empty(1, 24, 44, dtype=torch.float16)[:, :, :40]
    assert hopper.split_k_align(a, b, rows_of_44, 40, 56) == 4
    column_major = torch.empty(1, 40, 24, dtype=torch.float16).transpose(1, 2)
    assert hopper.split_k_align(a, b, column_major, 40, 56) == 1


@pytest.mark.parametrize("batch", [1, 3])
def test_split_k_descriptors_host_built_for_one_gemm_and_for_a_batch(batch, device, rng, monkeypatch):
    from tilelab.ops import matmul_hopper

    built, real = [], matmul_hopper.host_operand_descriptors

    def spy(*args, **kwargs):
        built.append(tuple(args[0].shape))
        return real(*args, **kwargs)

    monkeypatch.setattr(matmul_hopper, "host_operand_descriptors", spy)
    m, n, k = 20, 24, 96
    a = randn((batch, m, k), torch.float32, device, rng)
    b = randn((batch, k, n), torch.float32, device, rng)
    c = torch.full((batch, m, n), float("nan"), dtype=torch.float32, device=device)
    config = HopperConfig(16, 16, 16, group_m=1, num_warps=4, num_stages=1, epilogue_subtile=False, split_k=2)
    launch_split_k(a, b, c, m, n, k, "ieee", config, a_layout=operand_layout(a), b_layout=operand_layout(b))
    assert relative_error(c, torch.matmul(a.double(), b.double())) <= 2e-5
    assert built == [(batch, m, k)]  # a batch: 3-D descriptors (`stored_descriptor`)


def test_split_k_output_strides_and_dtype(device, rng):
    # The reduction casts to C's dtype and honours C's strides (a transposed output here).
    m, n, k = 24, 40, 64
    a = randn((m, k), torch.float16, device, rng)
    b = randn((k, n), torch.float16, device, rng)
    c_t = torch.full((n, m), float("nan"), dtype=torch.float32, device=device)
    config = HopperConfig(16, 16, 16, group_m=1, num_warps=4, num_stages=1, epilogue_subtile=False, split_k=2)
    launch_split_k(a[None], b[None], c_t.t()[None], m, n, k, "ieee", config)
    assert relative_error(c_t.t(), matmul_reference(a, b)) <= 2e-5


def test_split_k_is_deterministic(device, rng):
    a = randn((16, 200), torch.float16, device, rng)
    b = randn((200, 48), torch.float16, device, rng)
    config = HopperConfig(16, 16, 32, group_m=1, num_warps=4, num_stages=1, epilogue_subtile=False, split_k=4)
    outs = []
    for _ in range(2):
        c = torch.empty((16, 48), dtype=torch.float16, device=device)
        launch_split_k(a[None], b[None], c[None], 16, 48, 200, "ieee", config)
        outs.append(c)
    assert torch.equal(outs[0], outs[1])


# -- fp8 scaling ---------------------------------------------------------------------------------

FP8 = torch.float8_e4m3fn


def fp8_pair(m, n, k, device, gen, spread=1.0):
    a = (randn((m, k), torch.float32, device, gen) * spread).to(FP8)
    b = (randn((n, k), torch.float32, device, gen) * spread).to(FP8).t()  # [K, N], K-major
    return a, b


@pytest.fixture
def poisoned_scaled(monkeypatch):
    """NaN in every scaled_matmul output (padding included) before the kernel runs."""
    real = scaled_op._allocate_output
    buffers = []

    def poisoned(*args):
        out = real(*args)
        out._base.fill_(float("nan")) if out._base is not None else out.fill_(float("nan"))
        buffers.append(out)
        return out

    monkeypatch.setattr(scaled_op, "_allocate_output", poisoned)
    return buffers


@pytest.mark.parametrize("m,n,k", [(1, 16, 16), (70, 96, 64), (33, 255, 48), (100, 8, 32)])
@pytest.mark.parametrize("out_dtype", [torch.bfloat16, torch.float16, torch.float32])
@pytest.mark.parametrize("fast_accum", [True, False])
def test_fp8_scaling_math(m, n, k, out_dtype, fast_accum, device, rng, poisoned_scaled):
    a, b = fp8_pair(m, n, k, device, rng, spread=2.0)
    scale_a = torch.tensor([0.375], device=device)
    scale_b = torch.tensor([2.5], device=device)
    out = scaled_matmul(a, b, scale_a, scale_b, out_dtype=out_dtype, use_fast_accum=fast_accum)
    assert out.shape == (m, n) and out.dtype == out_dtype
    ref = scaled_matmul_reference(a, b, scale_a, scale_b)
    # fp8 inputs are exact; what is left is the accumulation and the output rounding. Hopper's fp8 tensor cores
    # keep fewer mantissa bits in their sums than float32 does: up to 7.5e-5 measured on the H200 at these shapes
    # (results/h200-gpu-tests-interpreter-dir-session30.log), exact to float32 on the interpreter.
    exact_sums = 1e-5 if device == "cpu" else 2e-4
    allowed = {torch.float32: exact_sums, torch.float16: 2e-3, torch.bfloat16: 1.6e-2}[out_dtype]
    assert relative_error(out, ref) <= allowed
    # The row padding past N is scratch: TMA on the H200 writes whole 16-byte units into it.


def test_fp8_scales_are_read_from_device_memory_each_call(device, rng):
    a, b = fp8_pair(40, 48, 32, device, rng)
    scale_a = torch.tensor([1.0], device=device)
    scale_b = torch.tensor([1.0], device=device)
    first = scaled_matmul(a, b, scale_a, scale_b, out_dtype=torch.float32)
    scale_a.fill_(4.0)
    scale_b.fill_(0.125)
    second = scaled_matmul(a, b, scale_a, scale_b, out_dtype=torch.float32)
    assert torch.allclose(second, first * 0.5, rtol=1e-6, atol=1e-6)
    # A 0-dim scale works as well as a 1-element one.
    third = scaled_matmul(a, b, torch.tensor(0.5, device=device), torch.ones((1, 1), device=device),
                          out_dtype=torch.float32)
    assert torch.allclose(third, first * 0.5, rtol=1e-6, atol=1e-6)


def test_fp8_persistent_loop_and_explicit_config(device, rng):
    # More tiles (4 x 4) than interpreter programs (4): each program loops.
    a, b = fp8_pair(128, 128, 64, device, rng)
    s = torch.ones(1, device=device)
    for subtile in (False, True):
        config = HopperConfig(32, 32, 32, group_m=3, num_warps=4, num_stages=1, epilogue_subtile=subtile)
        out = scaled_matmul(a, b, s, s, out_dtype=torch.float32, config=config)
        assert relative_error(out, scaled_matmul_reference(a, b, s, s)) <= 1e-5


def test_fp8_empty_and_zero_k(device):
    s = torch.ones(1, device=device)
    a = torch.zeros((0, 32), dtype=FP8, device=device)
    b = torch.zeros((16, 32), dtype=FP8, device=device).t()
    assert scaled_matmul(a, b, s, s).shape == (0, 16)
    a0 = torch.zeros((4, 0), dtype=FP8, device=device)
    b0 = torch.zeros((16, 0), dtype=FP8, device=device).t()
    out = scaled_matmul(a0, b0, s, s, out_dtype=torch.float32)
    assert out.shape == (4, 16) and (out == 0).all()


def test_fp8_inputs_that_require_grad_are_refused_not_dropped(device, rng):
    """scaled_matmul has no backward: with grad enabled it refuses, naming the tensor, where it returned a result
    without a gradient (a library user's review); under no_grad the same call runs."""
    a, b = fp8_pair(16, 16, 32, device, rng, spread=2.0)
    for name in ("scale_a", "scale_b"):
        scales = {"scale_a": torch.ones(1, device=device), "scale_b": torch.ones(1, device=device)}
        scales[name].requires_grad_()
        with pytest.raises(tilelab.ContractError, match=f"{name} requires grad, but scaled_matmul has no backward"):
            scaled_matmul(a, b, scales["scale_a"], scales["scale_b"])
        with torch.no_grad():
            out = scaled_matmul(a, b, scales["scale_a"], scales["scale_b"], out_dtype=torch.float32)
        want = a.double() @ b.double()
        assert not out.requires_grad and relative_error(out, want) < 1e-3  # Hopper's fp8 sums keep fewer bits


# -- scaled_matmul contracts ---------------------------------------------------------------------


def _good(device):
    a = torch.zeros((32, 64), dtype=FP8, device=device)
    b = torch.zeros((48, 64), dtype=FP8, device=device).t()
    return a, b, torch.ones(1, device=device), torch.ones(1, device=device)


def test_contract_accepts_the_good_call(device):
    a, b, sa, sb = _good(device)
    assert scaled_matmul(a, b, sa, sb).shape == (32, 48)


@pytest.mark.parametrize("case,error,match", [
    ("a_not_tensor", tilelab.InputTypeError, "a must be a torch.Tensor"),
    ("scale_not_tensor", tilelab.InputTypeError, "scale_b must be a torch.Tensor"),
    ("a_3d", tilelab.ShapeError, "a must be a 2-D matrix"),
    ("b_1d", tilelab.ShapeError, "b must be a 2-D matrix"),
    ("a_fp16", tilelab.DTypeError, "a has dtype float16"),
    ("b_e5m2", tilelab.DTypeError, "b has dtype float8_e5m2"),
    ("scale_fp16", tilelab.DTypeError, "scale_a has dtype float16"),
    ("scale_two", tilelab.ShapeError, "scale_b must hold exactly one element"),
    ("out_int", tilelab.DTypeError, "out_dtype must be bfloat16, float16 or float32"),
    ("out_fp8", tilelab.DTypeError, "out_dtype must be bfloat16, float16 or float32"),
    ("out_str", tilelab.InputTypeError, "out_dtype must be a torch.dtype"),
    ("fast_str", tilelab.InputTypeError, "use_fast_accum must be a bool"),
    ("inner", tilelab.ShapeError, "inner dimensions differ"),
    ("a_col_major", tilelab.AlignmentError, "a must be row-major"),
    ("b_row_major", tilelab.AlignmentError, "b must be K-major"),
    ("k_unaligned", tilelab.AlignmentError, "multiple of 16"),
    ("a_offset", tilelab.AlignmentError, "16-byte aligned data pointer"),
    ("meta_device", tilelab.DeviceError, "same device"),
])
def test_contract_errors(case, error, match, device):
    a, b, sa, sb = _good(device)
    kwargs = {}
    if case == "a_not_tensor":
        a = [[1.0]]
    elif case == "scale_not_tensor":
        sb = 1.0
    elif case == "a_3d":
        a = a[None]
    elif case == "b_1d":
        b = b[:, 0]
    elif case == "a_fp16":
        a = a.to(torch.float16)
    elif case == "b_e5m2":
        b = b.to(torch.float8_e5m2)
    elif case == "scale_fp16":
        sa = sa.half()
    elif case == "scale_two":
        sb = torch.ones(2, device=device)
    elif case == "out_int":
        kwargs["out_dtype"] = torch.int32
    elif case == "out_fp8":
        kwargs["out_dtype"] = FP8
    elif case == "out_str":
        kwargs["out_dtype"] = "bfloat16"
    elif case == "fast_str":
        kwargs["use_fast_accum"] = "yes"
    elif case == "inner":
        b = torch.zeros((48, 32), dtype=FP8, device=device).t()
    elif case == "a_col_major":
        a = torch.zeros((64, 32), dtype=FP8, device=device).t()
    elif case == "b_row_major":
        b = torch.zeros((64, 48), dtype=FP8, device=device)
    elif case == "k_unaligned":
        a = torch.zeros((32, 40), dtype=FP8, device=device)
        b = torch.zeros((48, 40), dtype=FP8, device=device).t()
    elif case == "a_offset":
        a = torch.zeros((32, 80), dtype=FP8, device=device)[:, 1:65]
    elif case == "meta_device":
        sb = torch.ones(1, device="meta")
    with pytest.raises(error, match=match):
        scaled_matmul(a, b, sa, sb, **kwargs)


def test_contract_cpu_tensors_need_the_interpreter(device, monkeypatch):
    a, b, sa, sb = _good("cpu")
    monkeypatch.setenv("TRITON_INTERPRET", "0")
    with pytest.raises(tilelab.DeviceError, match="interpreter"):
        scaled_matmul(a, b, sa, sb)
