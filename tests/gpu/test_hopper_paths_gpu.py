"""The Hopper kernels on a CUDA GPU (H200): persistent, split-K and fp8, every candidate config, against float64.

Run on the H200 with: TILELAB_REQUIRE_GPU=1 PYTHONPATH=src:. python -m pytest tests/gpu/test_hopper_paths_gpu.py -q
(-n 8 with pytest-xdist spreads the compiles over the CPU cores.)

References are float64 matmuls of the exact inputs, computed on the GPU
(the inputs are exact in float64, so this is the same as on the CPU, and
8192^3 takes milliseconds rather than minutes).
"""

import dataclasses
import json

import pytest
import torch

from tests.helpers import randn
from tilelab.alignment import padded_row_stride
from tilelab.ops import matmul_hopper as hopper
from tilelab.ops.matmul_hopper import HopperConfig, launch_persistent, launch_split_k
from tilelab.ops.matmul_plan import operand_layout
from tilelab.ops.scaled_matmul import scaled_matmul, scaled_matmul_reference
from tilelab.reference import relative_error, tolerance

pytestmark = pytest.mark.gpu

DTYPES = [torch.float16, torch.bfloat16, torch.float32]
SHAPES = [(1, 1, 1), (127, 255, 65), (4096, 4096, 4096), (8192, 8192, 1024)]


def _size(dtype) -> int:
    return torch.finfo(dtype).bits // 8


def padded(rows: int, cols: int, dtype, gen, *, fill=None) -> torch.Tensor:
    """[rows, cols] with rows padded to 16 bytes (TMA-describable for any cols); random unless `fill`."""
    width = padded_row_stride(cols, _size(dtype))
    if fill is not None:
        return torch.full((rows, width), fill, dtype=dtype, device="cuda")[:, :cols]
    return randn((rows, width), dtype, "cuda", gen)[:, :cols]


def operands(m, n, k, dtype, gen, *, a_k_major=True, b_k_major=False):
    a = padded(m, k, dtype, gen) if a_k_major else padded(k, m, dtype, gen).t()
    b = padded(n, k, dtype, gen).t() if b_k_major else padded(k, n, dtype, gen)
    return a, b


def reference(a, b) -> torch.Tensor:
    return torch.mm(a.double(), b.double())


def persistent_configs(dtype) -> list[HopperConfig]:
    base = hopper.PERSISTENT_CANDIDATES
    if dtype == torch.float32:
        base = [dataclasses.replace(c, block_k=c.block_k // 2) for c in base]
    size = _size(dtype)
    return [c for c in base if hopper.warp_specialize_compiles(c, size)
            and c.shared_memory_bytes(size, size) <= hopper.SHARED_MEMORY_BUDGET]


def run_persistent(a, b, config, *, precision="tf32", out_dtype=None, num_sms=None):
    """Launch on a NaN-poisoned padded output with a guard row below it; return the [M, N] view.

    The row padding is scratch: TMA on the H200 stores whole 16-byte units, so it is written
    (results/h200-padding-probe.log). The guard row past M must stay NaN.
    """
    m, k = a.shape
    n = b.shape[1]
    storage = torch.full((m + 1, padded_row_stride(n, (out_dtype or a.dtype).itemsize)), float("nan"),
                         dtype=out_dtype or a.dtype, device=a.device)
    c = storage[:m, :n]
    a3, b3, c3 = a[None], b[None], c[None]
    a_l, b_l = operand_layout(a3), operand_layout(b3)
    assert a_l.tma_ok and b_l.tma_ok
    launch_persistent(a3, b3, c3, m, n, k, a_l, b_l, precision, config,
                      num_sms or hopper.device_sms(a.device))
    assert torch.isnan(storage[m]).all(), "the kernel wrote past the last row"
    return c


def assert_close(out, ref, allowed, label):
    err = relative_error(out, ref)
    assert err <= allowed, f"{label}: relative error {err:.3e} > {allowed:.1e}"
    return err


# -- persistent ----------------------------------------------------------------------------------

_CASES = [(dtype, shape, cfg) for dtype in DTYPES for shape in SHAPES for cfg in persistent_configs(dtype)]


@pytest.mark.parametrize("dtype,shape,config", _CASES,
                         ids=[f"{str(d)[6:]}-{'x'.join(map(str, s))}-{c.label()}" for d, s, c in _CASES])
def test_persistent_every_candidate_against_float64(dtype, shape, config, rng):
    m, n, k = shape
    # Odd shapes: B K-major (stored [N, K]) as well, the layout TMA reads transposed.
    a, b = operands(m, n, k, dtype, rng, b_k_major=(m, n, k) == (127, 255, 65))
    out = run_persistent(a, b, config)
    assert_close(out, reference(a, b), tolerance(dtype), f"{config.label()} {shape} {dtype}")


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("warp_specialize,epilogue_subtile,block_m", [
    (False, False, 128), (False, True, 128), (True, False, 128), (True, True, 64),
])
def test_persistent_with_and_without_warp_specialization_and_subtiling(dtype, warp_specialize, epilogue_subtile,
                                                                        block_m, rng):
    config = HopperConfig(block_m, 128, 64, num_warps=4 if warp_specialize else 8, num_stages=4,
                          epilogue_subtile=epilogue_subtile, warp_specialize=warp_specialize)
    assert hopper.warp_specialize_compiles(config)
    a, b = operands(4096, 4096, 4096, dtype, rng)
    assert_close(run_persistent(a, b, config), reference(a, b), tolerance(dtype), config.label())


@pytest.mark.parametrize("a_k_major,b_k_major", [(True, True), (False, False), (False, True)])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_persistent_transposed_operands(a_k_major, b_k_major, dtype, rng):
    a, b = operands(1000, 1000, 1000, dtype, rng, a_k_major=a_k_major, b_k_major=b_k_major)
    for config in (hopper.PERSISTENT_CANDIDATES[0], hopper.PERSISTENT_CANDIDATES[3]):
        assert_close(run_persistent(a, b, config), reference(a, b), tolerance(dtype), config.label())


@pytest.mark.parametrize("num_sms", [1, 3, 7, 132])
def test_persistent_more_tiles_than_programs(num_sms, rng):
    a, b = operands(1000, 1000, 512, torch.float16, rng)
    config = HopperConfig(64, 64, 64, num_warps=4, num_stages=3, group_m=3)
    assert_close(run_persistent(a, b, config, num_sms=num_sms), reference(a, b), 2e-3, f"{num_sms} programs")


def test_persistent_flatten(rng):
    config = dataclasses.replace(hopper.PERSISTENT_CANDIDATES[0], flatten=True)
    a, b = operands(1000, 3000, 700, torch.float16, rng)
    assert_close(run_persistent(a, b, config), reference(a, b), 2e-3, config.label())


@pytest.mark.parametrize("precision", ["tf32", "tf32x3", "ieee"])
def test_persistent_float32_precisions(precision, rng):
    config = HopperConfig(128, 128, 32, num_warps=8, num_stages=3)
    a, b = operands(1024, 1024, 2048, torch.float32, rng)
    assert_close(run_persistent(a, b, config, precision=precision), reference(a, b),
                 tolerance(torch.float32, precision), precision)


@pytest.mark.parametrize("out_dtype", [torch.float32, torch.bfloat16])
def test_persistent_output_dtype_from_c(out_dtype, rng):
    a, b = operands(512, 384, 256, torch.float16, rng)
    out = run_persistent(a, b, hopper.PERSISTENT_CANDIDATES[0], out_dtype=out_dtype)
    assert out.dtype == out_dtype
    assert_close(out, reference(a, b), tolerance(torch.float16, out_dtype=out_dtype), str(out_dtype))


@pytest.mark.parametrize("shared_b", [False, True])
def test_persistent_batched(shared_b, rng):
    batch, m, n, k = 3, 200, 136, 96
    a = randn((batch, m, k), torch.float16, "cuda", rng)
    b = randn((1 if shared_b else batch, k, n), torch.float16, "cuda", rng)
    c = torch.full((batch, m, n), float("nan"), dtype=torch.float16, device="cuda")
    b3 = b.expand(batch, k, n) if shared_b else b
    launch_persistent(a, b3, c, m, n, k, operand_layout(a), operand_layout(b3), "tf32",
                      HopperConfig(64, 64, 32, num_warps=4, num_stages=3), 5)
    assert_close(c, torch.matmul(a.double(), b3.double()), 2e-3, "batched")


# -- split-K -------------------------------------------------------------------------------------


def _split_cases():
    cases = []
    for m in (16, 128):
        for cfg in hopper.prune(hopper.SPLIT_K_CANDIDATES, m, 4096, 2, 2):
            cases.append((torch.float16, m, cfg))
        for dtype in (torch.bfloat16, torch.float32):
            for split in (1, 2, 4, 8):
                cases.append((dtype, m, HopperConfig(16 if m == 16 else 64, 64, 128 if dtype != torch.float32 else 64,
                                                     num_warps=4, num_stages=3, epilogue_subtile=False,
                                                     split_k=split)))
    return cases


_SPLIT = _split_cases()


@pytest.mark.parametrize("descriptors", [False, True])
@pytest.mark.parametrize("dtype,m,config", _SPLIT, ids=[f"{str(d)[6:]}-{m}-{c.label()}" for d, m, c in _SPLIT])
def test_split_k_against_float64(dtype, m, config, descriptors, rng):
    n = k = 4096
    a, b = operands(m, n, k, dtype, rng)
    c = torch.full((m, n), float("nan"), dtype=dtype, device="cuda")
    layouts = {"a_layout": operand_layout(a[None]), "b_layout": operand_layout(b[None])} if descriptors else {}
    launch_split_k(a[None], b[None], c[None], m, n, k, "tf32", config, **layouts)
    assert_close(c, reference(a, b), tolerance(dtype), config.label())


@pytest.mark.parametrize("b_k_major", [False, True])
def test_split_k_descriptors_ragged(b_k_major, rng):
    m, n, k = 37, 300, 1000  # 1000 = 7 whole steps of 128 + 104: TMA zero-pads the last
    a, b = operands(m, n, k, torch.float16, rng, b_k_major=b_k_major)
    c = torch.full((m, n), float("nan"), dtype=torch.float16, device="cuda")
    config = HopperConfig(16, 64, 128, num_warps=4, num_stages=3, epilogue_subtile=False, split_k=3)
    launch_split_k(a[None], b[None], c[None], m, n, k, "tf32", config,
                   a_layout=operand_layout(a[None]), b_layout=operand_layout(b[None]))
    assert_close(c, reference(a, b), 2e-3, "descriptor split-K, ragged")


def test_split_k_is_deterministic_and_handles_uneven_slices(rng):
    m, n, k = 33, 300, 1000  # 1000 = 7 steps of 128 + 104: slices of 2 steps, the last short
    a = randn((m, k), torch.float16, "cuda", rng)
    b = randn((k, n), torch.float16, "cuda", rng).t().contiguous().t()  # column-major: any strides
    config = HopperConfig(16, 64, 128, num_warps=4, num_stages=3, epilogue_subtile=False, split_k=4)
    outs = []
    for _ in range(3):
        c = torch.full((m, n), float("nan"), dtype=torch.float16, device="cuda")
        launch_split_k(a[None], b[None], c[None], m, n, k, "tf32", config)
        outs.append(c)
    assert_close(outs[0], reference(a, b), 2e-3, "uneven split-K")
    assert all(torch.equal(outs[0], o) for o in outs[1:]), "split-K result changed between runs"


# -- fp8 -----------------------------------------------------------------------------------------

FP8 = torch.float8_e4m3fn


def fp8_operands(m, n, k, gen, spread=2.0):
    a = (randn((m, k), torch.float32, "cuda", gen) * spread).to(FP8)
    b = (randn((n, k), torch.float32, "cuda", gen) * spread).to(FP8).t()  # [K, N], K-major
    return a, b


def fp8_exact(a, b, scale_a, scale_b) -> torch.Tensor:
    return torch.mm(a.double(), b.double()) * (scale_a.double() * scale_b.double())


@pytest.mark.parametrize("fast_accum", [True, False])
def test_fp8_large_against_float64_and_torch_scaled_mm(fast_accum, rng):
    m = n = k = 8192
    a, b = fp8_operands(m, n, k, rng)
    scale_a = torch.tensor([0.75], device="cuda")
    scale_b = torch.tensor([1.25], device="cuda")
    out = scaled_matmul(a, b, scale_a, scale_b, out_dtype=torch.bfloat16, use_fast_accum=fast_accum)
    assert out.shape == (m, n) and out.dtype == torch.bfloat16
    exact = fp8_exact(a, b, scale_a, scale_b)
    err = assert_close(out, exact, tolerance(FP8, out_dtype=torch.bfloat16), f"fp8 fast_accum={fast_accum}")
    theirs = torch._scaled_mm(a, b, scale_a, scale_b, out_dtype=torch.bfloat16, use_fast_accum=True)
    err_torch = relative_error(theirs, exact)
    # Same inputs, same rounding of the output: within a small factor of torch's own error.
    assert err <= max(3 * err_torch, 1e-2), f"ours {err:.3e} vs torch._scaled_mm {err_torch:.3e}"
    assert relative_error(out, theirs.double()) <= 1e-2


@pytest.mark.parametrize("config", hopper.FP8_CANDIDATES, ids=lambda c: c.label())
@pytest.mark.parametrize("out_dtype", [torch.bfloat16, torch.float16, torch.float32])
def test_fp8_every_candidate_and_output_dtype(config, out_dtype, rng):
    if config.shared_memory_bytes(1, _size(out_dtype)) > hopper.SHARED_MEMORY_BUDGET:
        config = dataclasses.replace(config, num_stages=3)  # the next candidate prune() keeps for float32 out
    if config.shared_memory_bytes(1, _size(out_dtype)) > hopper.SHARED_MEMORY_BUDGET:
        pytest.skip(f"{config.label()} does not fit a {out_dtype} output even with 3 stages: prune() drops it")
    m, n, k = 1000, 1040, 2048  # ragged M, N; K a multiple of 16 (TMA)
    a, b = fp8_operands(m, n, k, rng, spread=1.0)
    scale_a = torch.tensor([0.5], device="cuda")
    scale_b = torch.tensor([3.0], device="cuda")
    for fast in (True, False):
        out = scaled_matmul(a, b, scale_a, scale_b, out_dtype=out_dtype, use_fast_accum=fast, config=config)
        assert out.dtype == out_dtype
        assert_close(out, scaled_matmul_reference(a, b, scale_a, scale_b), tolerance(FP8, out_dtype=out_dtype),
                     f"{config.label()} -> {out_dtype} fast={fast}")


@pytest.mark.parametrize("flatten", [False, True])
@pytest.mark.parametrize("num_sms", [1, 7])
def test_fp8_more_tiles_than_programs(flatten, num_sms, rng):
    from tilelab.ops import scaled_matmul as scaled_op

    m, n, k = 1000, 1040, 512
    a, b = fp8_operands(m, n, k, rng, spread=1.0)
    scale_a = torch.tensor([0.5], device="cuda")
    scale_b = torch.tensor([3.0], device="cuda")
    c = torch.full((m, n), float("nan"), dtype=torch.bfloat16, device="cuda")
    config = HopperConfig(128, 128, 128, num_warps=8, num_stages=3, group_m=3, flatten=flatten)
    scaled_op.launch_scaled(a, b.t(), c, scale_a, scale_b, m, n, k, config, True, num_sms)
    assert_close(c, scaled_matmul_reference(a, b, scale_a, scale_b), tolerance(FP8, out_dtype=torch.bfloat16),
                 f"{num_sms} programs, flatten={flatten}")


def test_fp8_replayed_launch_computes_new_inputs_and_scales(monkeypatch, rng):
    """The second call with the same signature replays the first launch: new addresses, new values, fresh output."""
    from tilelab.ops import scaled_matmul as scaled_op

    monkeypatch.setattr(scaled_op, "_REPLAYS", {})
    m, n, k = 300, 1001, 256  # N = 1001: C's rows padded to 1024 elements (2048 bytes), the caller sees a view
    seen, real = [], scaled_op.launch_scaled

    def spy(*args):
        seen.append(args[8])
        return real(*args)

    monkeypatch.setattr(scaled_op, "launch_scaled", spy)
    outputs = []
    for scales in ((0.5, 3.0), (1.25, 0.75)):
        a, b = fp8_operands(m, n, k, rng, spread=1.0)
        scale_a, scale_b = (torch.tensor([s], device="cuda") for s in scales)
        torch.full((1 << 22,), float("nan"), device="cuda")  # freed NaNs: the allocator hands them out next
        out = scaled_matmul(a, b, scale_a, scale_b, out_dtype=torch.bfloat16, use_fast_accum=True)
        assert out.shape == (m, n) and out.stride() == (1024, 1)
        assert_close(out, scaled_matmul_reference(a, b, scale_a, scale_b), tolerance(FP8, out_dtype=torch.bfloat16),
                     f"scales {scales}")
        outputs.append(out)
    assert len(seen) == 1 and len(scaled_op._REPLAYS) == 1  # the second call was a replay
    assert outputs[0].data_ptr() != outputs[1].data_ptr()
    scale_a.fill_(2.0)  # same address, new value: read at every launch
    assert_close(scaled_matmul(a, b, scale_a, scale_b, out_dtype=torch.bfloat16, use_fast_accum=True),
                 scaled_matmul_reference(a, b, scale_a, scale_b), tolerance(FP8, out_dtype=torch.bfloat16), "new scale")


def test_fp8_pretune_times_every_candidate_and_the_next_call_uses_the_winner(monkeypatch, tmp_path, rng):
    from tilelab import tuning
    from tilelab.ops import scaled_matmul as scaled_op

    cache = tuning.TuningCache(tmp_path / "tuning.json")
    cache._shipped = {}  # measure here, whatever the shipped table holds
    monkeypatch.setattr(tuning, "_cache", cache)
    m, n, k = 1000, 1040, 2048
    records = scaled_op.pretune_scaled([(m, n, k)])
    assert [r["use_fast_accum"] for r in records] == [True, False]
    entries = json.loads(cache.path.read_text())["entries"]
    device = torch.device("cuda", torch.cuda.current_device())
    for record in records:
        entry = entries[scaled_op.tuning_key(device, torch.bfloat16, m, n, k, record["use_fast_accum"])]
        assert entry["config"] == record["config"]
        # Every candidate compiled, ran and was timed (none dropped for lack of resources).
        assert len(entry["timings_ms"]) == len(scaled_op.candidates(m, n, torch.bfloat16))

    used = []
    real = scaled_op.launch_scaled

    def spy(*args):
        used.append(args[8])  # the config
        return real(*args)

    monkeypatch.setattr(scaled_op, "launch_scaled", spy)
    a, b = fp8_operands(m, n, k, rng, spread=1.0)
    s = torch.ones(1, device="cuda")
    for record in records:
        out = scaled_matmul(a, b, s, s, use_fast_accum=record["use_fast_accum"])
        assert used[-1] == HopperConfig.from_dict(record["config"])
        assert_close(out, scaled_matmul_reference(a, b, s, s), tolerance(FP8, out_dtype=torch.bfloat16),
                     f"tuned {used[-1].label()}")


def test_fp8_promoted_accumulation_is_no_worse_than_fast(rng):
    # All-positive products over a long K: the running sum grows large, where a
    # reduced-precision accumulator loses the most low bits.
    m, n, k = 256, 256, 32768
    a = (randn((m, k), torch.float32, "cuda", rng).abs() + 0.5).to(FP8)
    b = (randn((n, k), torch.float32, "cuda", rng).abs() + 0.5).to(FP8).t()
    one = torch.ones(1, device="cuda")
    exact = fp8_exact(a, b, one, one)
    errors = {fast: relative_error(scaled_matmul(a, b, one, one, out_dtype=torch.float32, use_fast_accum=fast),
                                   exact) for fast in (True, False)}
    assert errors[False] <= errors[True] * 1.05 + 1e-7, errors
    assert errors[False] <= 1e-3, errors


def test_fp8_odd_shapes_and_empty(rng):
    a, b = fp8_operands(127, 255, 64, rng)
    s = torch.ones(1, device="cuda")
    assert_close(scaled_matmul(a, b, s, s), scaled_matmul_reference(a, b, s, s), 1.6e-2, "127x255x64")
    assert scaled_matmul(a[:0], b, s, s).shape == (0, 255)
    assert (scaled_matmul(a[:, :0], b[:0], s, s) == 0).all()
