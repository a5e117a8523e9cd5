"""Planning helpers: row padding, layouts, 64-bit offsets, tuning keys and cache."""

import json
from pathlib import Path

import pytest
import torch
import triton

from tilelab import alignment, tuning
from tilelab.ops import bound_launch, descriptors, matmul_plan
from tilelab.ops import matmul as matmul_op
from tilelab.reference import relative_error, tolerance


@pytest.mark.parametrize("width,element_size,expected", [
    (255, 2, 256), (256, 2, 256), (1, 2, 8), (7, 4, 8), (36, 2, 40), (3, 1, 16), (0, 2, 8),
])
def test_padded_row_stride(width, element_size, expected):
    assert alignment.padded_row_stride(width, element_size) == expected
    assert (expected * element_size) % 16 == 0 and expected >= width


def test_layout_of_row_and_column_major():
    x = torch.empty(1, 64, 32, dtype=torch.float16)
    assert matmul_plan.operand_layout(x) == matmul_plan.OperandLayout(True, 32, 0, True)
    xt = torch.empty(1, 32, 64, dtype=torch.float16).transpose(1, 2)
    assert matmul_plan.operand_layout(xt) == matmul_plan.OperandLayout(False, 64, 0, True)


def test_layout_rejects_unaligned_rows_and_no_unit_stride():
    assert not matmul_plan.operand_layout(torch.empty(1, 8, 7, dtype=torch.float16)).tma_ok
    assert not matmul_plan.operand_layout(torch.empty(1, 8, 64, dtype=torch.float16)[:, :, ::2]).tma_ok


def test_layout_single_column_uses_column_orientation():
    # A contiguous [K, 1] matrix is also column-major with a free row stride.
    layout = matmul_plan.operand_layout(torch.empty(1, 9, 1, dtype=torch.float16))
    assert layout.tma_ok


def test_64bit_offsets_only_when_needed():
    small = torch.empty(1, 128, 128, dtype=torch.float16)
    assert not matmul_plan.needs_64bit_offsets(small, small, 128, 128, 1)
    # 8192x8192 (2**26 elements) is far from 2**31: the batch stride must not be counted 257 times.
    big = torch.empty(1, 8192, 8192, dtype=torch.float16, device="meta")
    assert not matmul_plan.needs_64bit_offsets(big, big, 8192, 8192, 1)
    # 40 batches of 8192x8192 do pass 2**31 through the batch offset alone.
    batched = torch.empty(40, 8192, 8192, dtype=torch.float16, device="meta")
    assert matmul_plan.needs_64bit_offsets(batched, big, 8192, 8192, 40)
    # A fake 70000 x 40000 view: stride products pass 2**31 elements without allocating them.
    huge = torch.empty(1, 70000, 40000, dtype=torch.float16, device="meta")
    assert matmul_plan.needs_64bit_offsets(huge, small, 70000, 128, 1)


def test_shape_bucket_and_prune():
    assert tuning.shape_bucket(127, 255, 65) == "128x256x128"
    assert tuning.shape_bucket(127, 255, 65, fine=True) == "128x256x96"
    assert tuning.shape_bucket(768, 1000, 11008, fine=True) == "768x1024x12288"
    assert [tuning.half_octave_at_least(x) for x in (0, 1, 2, 3, 5, 7, 9, 13, 25, 97, 700, 769, 16000)] == [
        1, 1, 2, 3, 6, 8, 12, 16, 32, 128, 768, 1024, 16384]
    pruned = tuning.prune(tuning.GPU_CANDIDATES, m=16, n=4096, element_size=2)
    assert pruned and all(c.block_m <= 32 for c in pruned)
    assert all(c.shared_memory_bytes(2) <= tuning.SHARED_MEMORY_BUDGET for c in pruned)


def test_tuning_cache_round_trip(tmp_path):
    path = tmp_path / "tuning.json"
    cache = tuning.TuningCache(path)
    cfg = tuning.Config(64, 128, 32, 8, 4, 3)
    cache.put("k", cfg, {"a": 1.0})
    assert json.loads(path.read_text())["entries"]["k"]["config"]["block_n"] == 128
    assert tuning.TuningCache(path).get("k") == cfg
    assert tuning.TuningCache(path).get("missing") is None


def test_shipped_table_can_be_switched_off(monkeypatch, tmp_path):
    shipped = tuning.TuningCache(tmp_path / "a.json")._shipped
    key = next(iter(shipped))  # any entry of the H200 table
    assert tuning.TuningCache(tmp_path / "b.json").get(key) is not None
    monkeypatch.setenv("TILELAB_SHIPPED_TUNING", "0")
    assert tuning.TuningCache(tmp_path / "c.json").get(key) is None


def test_choose_uses_first_candidate_on_interpreter(monkeypatch, tmp_path):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    monkeypatch.setattr(tuning, "_cache", tuning.TuningCache(tmp_path / "t.json"))
    calls = []
    chosen = tuning.choose("key", tuning.GPU_CANDIDATES, calls.append)
    assert chosen == tuning.GPU_CANDIDATES[0] and calls == []


def test_relative_error_and_tolerances():
    ref = torch.ones(4, dtype=torch.float64)
    assert relative_error(ref * 1.001, ref) == pytest.approx(1e-3)
    assert relative_error(torch.tensor([1.0, float("nan"), 1.0, 1.0]), ref) == float("inf")
    assert tolerance(torch.float32, "ieee") < tolerance(torch.float32, "tf32") < tolerance(torch.bfloat16)
    assert tolerance(torch.float32, "ieee", out_dtype=torch.bfloat16) == tolerance(torch.bfloat16)


def test_descriptor_epilogue_counts_in_shared_memory():
    cfg = tuning.Config(128, 256, 32, 8, 8, 3)
    assert cfg.shared_memory_bytes(4, out_element_size=4) > tuning.SHARED_MEMORY_BUDGET
    assert cfg not in tuning.prune([cfg, tuning.FIXED], 4096, 4096, 4, out_element_size=4)


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32])
def test_inspected_descriptor_default_fits_with_its_staged_c_tile(dtype):
    # kernel-inspect compiles the tile a launch would keep: a pipeline plus C's staging buffer that fit.
    _, _, constexprs, config = matmul_op.inspection_source("descriptor", dtype)
    size = dtype.itemsize
    assert config.shared_memory_bytes(size, out_element_size=size) <= tuning.SHARED_MEMORY_BUDGET
    assert constexprs["B_K_MAJOR"] is False
    assert matmul_op.inspection_source("descriptor", dtype, b_k_major=True)[2]["B_K_MAJOR"] is True


def test_inspection_of_the_pointer_path_has_no_k_major_b():
    with pytest.raises(ValueError, match="descriptor path"):
        matmul_op.inspection_source("pointer", torch.float16, b_k_major=True)


def test_replays_only_for_cuda_tensors_and_without_launch_hooks():

    a = torch.empty(4, 4)
    assert matmul_op._replay_key(a, a, None, None, None, None) is None
    assert bound_launch.no_launch_hooks()

    def hook(*args):
        pass

    triton.knobs.runtime.launch_enter_hook.add(hook)
    try:
        assert not bound_launch.no_launch_hooks()
    finally:
        triton.knobs.runtime.launch_enter_hook.remove(hook)


def test_descriptor_scratch_allocator_is_set_in_every_thread():
    """Triton's allocator lives in a ContextVar: autograd's backward threads must get one too."""
    import threading

    from triton.runtime import _allocation

    seen = []

    def worker():
        descriptors.ensure_descriptor_scratch()
        seen.append(_allocation._allocator.get())

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert seen == [descriptors._allocate_scratch]


def test_descriptor_scratch_keeps_a_callers_allocator():
    import contextvars

    from triton.runtime import _allocation

    def mine(size, alignment, stream):
        return torch.empty(size, dtype=torch.int8)

    def run():
        triton.set_allocator(mine)
        descriptors.ensure_descriptor_scratch()
        return _allocation._allocator.get()

    assert contextvars.copy_context().run(run) is mine


def test_choose_without_measuring_keeps_the_default(monkeypatch, tmp_path):
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    monkeypatch.setattr(tuning, "_cache", tuning.TuningCache(tmp_path / "t.json"))
    calls = []
    assert tuning.choose("k", tuning.GPU_CANDIDATES, calls.append, measure=False) == tuning.GPU_CANDIDATES[0]
    assert calls == []
    tuning.cache().put("k", tuning.FIXED, {})
    assert tuning.choose("k", tuning.GPU_CANDIDATES, calls.append, measure=False) == tuning.FIXED


def test_choose_falls_back_to_the_coarser_key_unless_exploring(monkeypatch, tmp_path):
    """A call between powers of two takes the power-of-two bucket's winner untimed; pretune (`exploring`) times
    the candidates for the half-octave bucket's own key."""
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    monkeypatch.setattr(tuning, "_cache", tuning.TuningCache(tmp_path / "t.json"))
    monkeypatch.setattr(torch.cuda, "is_current_stream_capturing", lambda: False)
    candidates = tuning.GPU_CANDIDATES[:2]
    monkeypatch.setattr(tuning, "measure_ms", lambda run, samples=16: run() or 1.0 + candidates.index(launched[-1]))
    launched = []
    tuning.cache().put("coarse", tuning.FIXED, {})
    assert tuning.choose("fine", candidates, launched.append, fallback_key="coarse") == tuning.FIXED
    assert launched == [] and tuning.cache().get("fine") is None
    with tuning.exploring():
        assert tuning.choose("fine", candidates, launched.append, fallback_key="coarse") == candidates[0]
    assert launched and tuning.cache().get("fine") == candidates[0]
    assert tuning.choose("fine", candidates, launched.append, fallback_key="coarse") == candidates[0]  # its own now
    assert tuning.choose("new", candidates, launched.append, fallback_key="unknown") == candidates[0]  # timed


def test_turn_order_is_forward_then_back():
    assert tuning.turn_order(["A", "B", "C"], 4) == list("ABCCBAABCCBA")
    assert tuning.turn_order(("A", "B"), 1) == ["A", "B"]


def test_choose_is_not_fooled_by_a_clock_that_slows_down_as_it_goes(monkeypatch, tmp_path):
    # Each timing comes out 0.1 ms slower than the one before (a GPU heating up). Measured one after the other,
    # the first candidate would win with the worst true time; taking turns there and back, the fastest wins.
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    monkeypatch.setattr(tuning, "_cache", tuning.TuningCache(tmp_path / "t.json"))
    monkeypatch.setattr(torch.cuda, "is_current_stream_capturing", lambda: False)
    candidates = tuning.GPU_CANDIDATES[:3]
    true_ms = dict(zip(candidates, (1.05, 1.00, 1.02), strict=True))
    timings = []

    def drifting(launch, samples=tuning.TUNING_SAMPLES):
        config = launch()
        timings.append(true_ms[config] + 0.1 * len(timings))
        return timings[-1]

    monkeypatch.setattr(tuning, "measure_ms", drifting)
    assert tuning.choose("k", candidates, lambda c: c) == candidates[1]
    assert len(timings) == len(candidates) * tuning.TUNING_ROUNDS


def test_choose_drops_a_candidate_that_cannot_compile_and_times_the_rest(monkeypatch, tmp_path):
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    monkeypatch.setattr(tuning, "_cache", tuning.TuningCache(tmp_path / "t.json"))
    monkeypatch.setattr(torch.cuda, "is_current_stream_capturing", lambda: False)
    candidates = tuning.GPU_CANDIDATES[:3]
    launched = []

    def launch(config):
        launched.append(config)
        if config == candidates[0]:
            raise triton.runtime.errors.OutOfResources(300000, 232448, "shared memory")

    monkeypatch.setattr(tuning, "measure_ms", lambda run, samples=16: run() or 1.0 + candidates.index(launched[-1]))
    assert tuning.choose("k", candidates, launch) == candidates[1]
    assert launched.count(candidates[0]) == 1  # tried once, then out
    assert set(json.loads((tmp_path / "t.json").read_text())["entries"]["k"]["timings_ms"]) == {
        c.label() for c in candidates[1:]}


def _on_fake_hopper(monkeypatch):
    monkeypatch.setattr(matmul_op.env, "interpreting", lambda: False)
    monkeypatch.setattr(matmul_op.env, "is_hopper_or_newer", lambda device: True)


@pytest.mark.parametrize("paths", [(None,), ("persistent",)])
def test_pretune_times_the_persistent_path_also_where_the_default_leads_there(monkeypatch, paths):
    # matmul() never times persistent candidates by itself, so pretune must, for path=None too.
    _on_fake_hopper(monkeypatch)
    launched = []
    monkeypatch.setattr(matmul_op, "_launch_persistent", lambda plan, prob, c3, *, measure=False: launched.append(
        (plan.path, measure, tuning._EXPLORING.get())))
    monkeypatch.setattr(matmul_op, "matmul", lambda *a, **kw: pytest.fail("the untimed default launched"))
    monkeypatch.setattr(matmul_op, "describe_plan", lambda a, b, **kw: {"path": "persistent", "config": None})
    monkeypatch.setattr(matmul_op, "_check", lambda *args: None)  # CPU tensors on a pretend Hopper
    matmul_op._REPLAYS[("recorded", "before")] = None
    records = matmul_op.pretune([(4096, 4096, 1024)], (torch.float16,), paths=paths, device="cpu")
    # Timed in its own bucket (exploring), and no launch recorded before pretune can replay an older choice.
    assert launched == [("persistent", True, True)] and not tuning._EXPLORING.get()
    assert ("recorded", "before") not in matmul_op._REPLAYS
    assert [r["path"] for r in records] == ["persistent"]


@pytest.mark.parametrize("m,n,expected", [(128, 256, (64, 64)), (1024, 1024, (128, 64)), (4096, 4096, (128, 256))])
def test_untuned_persistent_default_fills_the_gpu(monkeypatch, tmp_path, m, n, expected):
    from tilelab.ops import matmul_hopper

    _on_fake_hopper(monkeypatch)
    monkeypatch.setattr(matmul_hopper, "device_sms", lambda device: 132)
    monkeypatch.setattr(tuning, "_cache", tuning.TuningCache(tmp_path / "t.json"))  # nothing remembered
    monkeypatch.setattr(tuning, "measure_ms", lambda *a, **kw: pytest.fail("an untuned default is not timed"))
    a, b = torch.randn(m, 64, dtype=torch.float16), torch.randn(64, n, dtype=torch.float16)
    p = matmul_op._as_gemm(a, b)
    plan = matmul_plan.plan_matmul(p.a3, p.b3, "persistent", "tf32", None)
    c3 = torch.empty(1, m, n, dtype=torch.float16)
    config = matmul_op.persistent_config(plan, p, c3)
    assert (config.block_m, config.block_n) == expected, config.label()
    if m == 4096:
        assert config == matmul_hopper.PERSISTENT_CANDIDATES[0]  # the H200's measured default stands


@pytest.mark.parametrize("b_shape,b_batch_stride_zero", [((1024, 96), False), ((3, 1024, 96), False),
                                                         ((1024, 96), True)])
def test_tf32_copies_row_major_b_to_k_major(monkeypatch, b_shape, b_batch_stride_zero, device):
    _on_fake_hopper(monkeypatch)
    if b_batch_stride_zero:  # batches of A that cannot fold into rows: B stays broadcast over them
        a = torch.randn(512, 3, 1024, device=device).transpose(0, 1)
    else:
        a = torch.randn(3, 512, 1024, device=device) if len(b_shape) == 3 else torch.randn(512, 1024, device=device)
    b = torch.randn(b_shape, device=device)
    p = matmul_op._with_k_major_b(matmul_op._as_gemm(a, b), "tf32")
    assert p.b3.stride(1) == 1 and p.b3.stride(2) == p.b3.shape[1]  # [N, K] storage seen as [K, N]
    assert torch.equal(p.b3, matmul_op._as_gemm(a, b).b3)
    if b_batch_stride_zero:
        assert p.b3.shape[0] == 3 and p.b3.stride(0) == 0  # a broadcast B is copied once
    described = matmul_op._with_k_major_b(matmul_op._as_gemm(a, b), "tf32", copy=False)
    assert described.b3.shape == p.b3.shape and described.b3.stride() == p.b3.stride()


@pytest.mark.parametrize("precision,m,dtype", [("ieee", 512, torch.float32), ("tf32", 511, torch.float32),
                                               ("tf32", 4096, torch.float16)])
def test_tf32_k_major_copy_only_where_it_pays(monkeypatch, precision, m, dtype):
    _on_fake_hopper(monkeypatch)
    p = matmul_op._as_gemm(torch.randn(m, 64).to(dtype), torch.randn(64, 80).to(dtype))
    assert matmul_op._with_k_major_b(p, precision if dtype == torch.float32 else None) is p


@pytest.mark.parametrize("a_shape,b_shape,b_transposed,expected", [
    ((512, 512), (512, 512), False, False),  # aligned rows: pointer loads vectorize
    ((512, 512), (512, 512), True, False),  # a column-major B with aligned columns, too
    ((1000, 1000), (1000, 1000), False, False),  # 1000-element rows: pointer_align proves 16 bytes
    ((1000, 1004), (1004, 1000), False, True),  # fp16 rows sharing only 4 elements: 8 bytes
    ((64, 1000), (1000, 64), True, True),  # a column-major B: pointer_align cannot help
    ((1, 1000), (1000, 1), False, False),  # vectors have no row stride to speak of
])
def test_rows_defeat_vector_loads_looks_at_the_row_stride(a_shape, b_shape, b_transposed, expected):
    a = torch.empty(a_shape, dtype=torch.float16)
    b = torch.empty(b_shape[::-1], dtype=torch.float16).t() if b_transposed else torch.empty(b_shape,
                                                                                             dtype=torch.float16)
    assert matmul_plan._rows_defeat_vector_loads(a[None], b[None]) is expected


@pytest.mark.parametrize("a_shape,b_shape,dtype,expected", [
    ((1000, 1000), (1000, 1000), torch.float16, 8),  # one 16-byte vector of fp16
    ((1000, 1000), (1000, 1000), torch.float32, 4),  # ... of fp32
    ((64, 64), (64, 64), torch.float16, 1),  # multiples of 16: Triton proves that itself
    ((1000, 1004), (1004, 1000), torch.float16, 4),
    ((1000, 1001), (1001, 1000), torch.float16, 1),  # an odd K
    ((3, 1000, 1000), (3, 1000, 1000), torch.float16, 8),
])
def test_pointer_align_is_the_largest_shared_power_of_two(a_shape, b_shape, dtype, expected):
    a = torch.empty(a_shape, dtype=dtype).reshape(-1, *a_shape[-2:])
    b = torch.empty(b_shape, dtype=dtype).reshape(-1, *b_shape[-2:])
    assert matmul_plan.pointer_align(a, b, b.shape[2], a.shape[2]) == expected


def test_pointer_align_needs_row_major_operands_and_batch_strides():
    a = torch.empty(1000, 1000, dtype=torch.float16)
    assert matmul_plan.pointer_align(a[None], a.t()[None], 1000, 1000) == 1  # B column-major
    batch = torch.empty(2, 1000 * 1000 + 4, dtype=torch.float16)[:, 4:].reshape(2, 1000, 1000)
    assert matmul_plan.pointer_align(batch, batch, 1000, 1000) == 4  # batch stride 1000004


@pytest.mark.parametrize("m,n,k,batch,expected", [
    (512, 512, 512, 1, "pointer"),  # 2**27 multiply-adds: short K loops, the pointer path
    (1000, 1000, 1000, 1, "descriptor"),  # from 2**29, one GEMM: host-built descriptors, maskless edges
    (2048, 2048, 2048, 1, "descriptor"),
    (512, 512, 512, 2, "pointer"),  # a batch counts its GEMMs' work together: 2**28
    (512, 512, 512, 4, "descriptor"),  # 2**29, described once in 3-D on the host
    (512, 512, 512, 8, "persistent"),  # 2**30: an fp16 batch takes the persistent kernel from here
    (1000, 1000, 1000, 2, "persistent"),  # rows off sectors: in a batch the persistent kernel still measured ahead
    (2048, 2048, 2048, 2, "persistent"),  # one persistent grid over both GEMMs' tiles
    (4096, 4096, 1024, 1, "persistent"),  # 2**34: the persistent kernel
    (4096, 4096, 1024, 2, "persistent"),
])
def test_planner_path_follows_work_and_batch(monkeypatch, m, n, k, batch, expected):
    _on_fake_hopper(monkeypatch)
    a = torch.empty(batch, m, k, dtype=torch.float16)
    b = torch.empty(batch, k, n, dtype=torch.float16)
    assert matmul_plan.plan_matmul(a, b, None, "tf32", None).path == expected


@pytest.mark.parametrize("m,n,k,dtype,precision,expected", [
    (4000, 4000, 4000, torch.float16, "tf32", "persistent"),  # 8000-byte rows: off 128-byte lines, on sectors
    (3000, 3000, 3000, torch.float16, "tf32", "descriptor"),  # 6000-byte rows, 16 bytes into a sector
    (4096, 3000, 4096, torch.bfloat16, "tf32", "descriptor"),  # only B's rows are off sectors
    (4096, 4096, 3000, torch.float16, "tf32", "persistent"),  # only A's: the persistent kernel measured ahead
    (3004, 3004, 3004, torch.float32, "tf32", "persistent"),  # the rule is for 2-byte rows (measured there)
    (3004, 3004, 3004, torch.float32, "ieee", "descriptor"),  # full float32: one program per tile
])
def test_persistent_kernel_needs_b_rows_on_sectors(monkeypatch, m, n, k, dtype, precision, expected):
    _on_fake_hopper(monkeypatch)
    a = torch.empty(1, m, k, dtype=dtype)
    b = torch.empty(1, k, n, dtype=dtype)
    assert matmul_plan.plan_matmul(a, b, None, precision, None).path == expected


def test_rows_on_sectors_looks_at_base_and_strides():
    x = torch.empty(1, 64, 4096, dtype=torch.float16)
    assert matmul_plan.rows_on_sectors(x, matmul_plan.operand_layout(x))
    shifted = x[:, :, 8:]  # 16 bytes in: TMA can still read it, but every row starts mid-sector
    assert not matmul_plan.rows_on_sectors(shifted, matmul_plan.operand_layout(shifted))
    batch = torch.empty(3, 64 * 4096 + 8, dtype=torch.float16)[:, : 64 * 4096].view(3, 64, 4096)
    assert not matmul_plan.rows_on_sectors(batch, matmul_plan.operand_layout(batch))  # batch stride 16 bytes off


def test_tensor_map_cache_encodes_each_address_once():
    encoded = []

    def encode(address, swizzle, size, dtype, box, shape, strides, padding):
        encoded.append(address)
        return f"map@{address}"

    meta = {"swizzle": 3, "elem_size": 2, "elem_type": 6, "block_size": [128, 64], "fp4_padded": False}
    maps = bound_launch.TensorMapCache(encode, [([256, 512], [512, 1], meta), ([512, 128], [128, 1], meta)])
    assert maps.arguments(4096, 8192) == ["map@4096", 256, 512, 512, 1, "map@8192", 512, 128, 128, 1]
    assert maps.arguments(4096, 8192) == ["map@4096", 256, 512, 512, 1, "map@8192", 512, 128, 128, 1]
    assert encoded == [4096, 8192]  # the second call reused both maps
    maps.arguments(4096, 16384)  # a new address for B only
    assert encoded == [4096, 8192, 16384]
    for i in range(bound_launch.TensorMapCache.MAX_ADDRESSES + 1):  # bounded: many addresses start it over
        maps.arguments(1 << 20 + i, 8192)
    assert len(maps._maps[0]) <= bound_launch.TensorMapCache.MAX_ADDRESSES
    with pytest.raises(ValueError):
        maps.arguments(4096)  # one address per descriptor


def test_c_launcher_is_found_under_triton_wrapper():
    def wrap(launcher):
        def inner(*args):
            return launcher(*args)
        return inner

    assert bound_launch._c_launcher_under(wrap(len)) is len
    assert bound_launch._c_launcher_under(wrap(lambda *a: None)) is None  # not a C function
    assert bound_launch._c_launcher_under(None) is None


@pytest.mark.parametrize("m,n,k,batch,expected", [
    (16, 4096, 4096, 1, True), (128, 4096, 4096, 1, True),  # 32 tiles of 128x128 for 132 SMs, K to share out
    (1024, 1024, 1024, 1, False),  # 64 tiles, but K=1024: one slice won, and TMA beat it
    (128, 4096, 2048, 1, True),
    (4096, 4096, 4096, 1, False),  # plenty of tiles
    (128, 4096, 4096, 3, False),  # 96 tiles over the batch
])
def test_split_k_needs_few_tiles_and_a_long_k(monkeypatch, m, n, k, batch, expected):
    from tilelab.ops import matmul_hopper

    monkeypatch.setattr(matmul_op.env, "interpreting", lambda: False)
    monkeypatch.setattr(matmul_hopper, "device_sms", lambda device: 132)
    assert matmul_plan._split_k_pays_off(torch.device("cuda"), batch, m, n, k) is expected


@pytest.mark.parametrize("m", [16, 128])
def test_split_k_candidates_stop_at_two_waves_of_programs(m, monkeypatch):
    from tilelab.ops import matmul_hopper as hopper

    monkeypatch.delenv("TILELAB_SHIPPED_TUNING", raising=False)
    kept = hopper.split_k_candidates(m, 4096, 4096, 1, 2, 132)
    for c in kept:
        programs = triton.cdiv(m, c.block_m) * triton.cdiv(4096, c.block_n) * c.split_k
        assert c.split_k == 1 or programs <= 2 * 132, c.label()
    assert {1, 2} <= {c.split_k for c in kept}
    # The H200's tuned winners (tuned/h200.json) survive the cut: for 16 rows 16x64x64 tiles in 8 stages and
    # 2 slices; for 128 rows 64x64x128 tiles in 7 stages, unsplit (explain splitk and ARCHITECTURE cite it).
    shipped = tuning.TuningCache(Path("/nonexistent/tuning.json"))
    for dtype in ("float16", "bfloat16"):
        key = f"NVIDIA H200|splitk|{dtype}|{dtype}|tf32|ab|{m}x4096x4096"
        winner = shipped.get(key, hopper.HopperConfig)
        assert winner in kept, (key, winner)
        assert (winner.block_n, winner.split_k) == ((64, 1) if m == 128 else (64, 2))
    dropped = set(hopper.prune(hopper.SPLIT_K_CANDIDATES, m, 4096, 2, 0)) - set(kept)
    assert dropped and all(c.split_k > 1 for c in dropped)


@pytest.mark.parametrize("tiles,budget,expected", [
    (512, 132, 128),  # 4 tiles each instead of 116 programs with 4 and 16 with 3
    (2048, 132, 128), (1376, 132, 126),  # 8192^3 and 4096x11008x4096 in 128x256 tiles
    (100, 132, 100), (132, 132, 132), (1, 132, 1), (0, 132, 1),  # one tile per program at most
    (133, 132, 132), (529, 132, 132),  # an even grid would idle a third or a fifth of the SMs: untested, kept
    (40, 21, 20), (7, 3, 3), (5, 0, 1),
])
def test_balanced_programs_keeps_the_longest_program_and_most_sms(tiles, budget, expected):
    from tilelab.ops import matmul_hopper

    programs = matmul_hopper.balanced_programs(tiles, budget)
    assert programs == expected
    if tiles > 0 and budget > 0:
        # never a longer program than `budget` programs would have
        assert -(-tiles // programs) == -(-tiles // min(tiles, budget))


def test_persistent_grid_walks_a_batch_as_one_list_of_tiles():
    from tilelab.ops import matmul_hopper

    plain = matmul_hopper.PERSISTENT_CANDIDATES[0]
    assert matmul_hopper.persistent_grid(512, 1, 132, plain) == (128, 1)
    assert matmul_hopper.persistent_grid(256, 2, 132, plain) == (128, 1)  # 512 tiles in all, 4 each
    assert matmul_hopper.persistent_grid(512, 8, 132, plain) == (128, 1)  # 4096 tiles, 32 each
    assert matmul_hopper.persistent_grid(10, 4, 132, plain) == (40, 1)
    assert matmul_hopper.persistent_grid(8, 48, 132, plain) == (128, 1)  # 384 tiles: 3 each


def test_persistent_grid_never_gives_a_batch_more_programs_than_its_share_of_the_sms():
    # Warp-specialized configurations build descriptors in the kernel, one batch per grid row. Rounding the
    # share up made 8 x 17 = 136 programs for 132 SMs, and the last 4 ran after the others (call SSSS).
    from tilelab.ops import matmul_hopper

    ws = next(c for c in matmul_hopper.PERSISTENT_CANDIDATES if c.warp_specialize)
    assert matmul_hopper.persistent_grid(512, 1, 132, ws) == (128, 1)
    assert matmul_hopper.persistent_grid(512, 8, 132, ws) == (16, 8)
    assert matmul_hopper.persistent_grid(256, 2, 132, ws) == (64, 2)  # 66 SMs per batch, 4 tiles each
    assert matmul_hopper.persistent_grid(10, 4, 132, ws) == (10, 4)
    assert matmul_hopper.persistent_grid(1000, 500, 132, ws) == (1, 500)  # more batches than SMs: one each
    for tiles, batch in [(512, 8), (512, 7), (100, 33), (4, 132), (1000, 2)]:
        programs, rows = matmul_hopper.persistent_grid(tiles, batch, 132, ws)
        assert programs * rows <= 132


def test_filling_first_moves_a_smaller_tile_ahead_only_when_the_first_leaves_most_sms_idle():
    from tilelab.ops import matmul_hopper as hopper

    big, mid, small = (hopper.HopperConfig(bm, bn, 64, 8) for bm, bn in ((128, 256), (128, 128), (64, 64)))
    order = [big, mid, small]
    assert hopper.filling_first(order, 8192, 8192, 1, 132) == order  # 2048 tiles: unchanged
    assert hopper.filling_first(order, 2048, 2048, 1, 132) == order  # 128 tiles for 132 SMs: fine
    assert hopper.filling_first(order, 1024, 2048, 1, 132) == [mid, big, small]  # 64 tiles: under half; mid 128
    assert hopper.filling_first(order, 1024, 1024, 1, 132) == [small, big, mid]  # 32, 64, then 256 tiles
    assert hopper.filling_first(order, 128, 256, 1, 132) == [small, big, mid]  # none fills: the most tiles
    assert hopper.filling_first(order, 1024, 1024, 4, 132) == order  # a batch of 4 fills the GPU
    assert hopper.filling_first([big], 16, 16, 1, 132) == [big]
    assert hopper.filling_first([], 16, 16, 1, 132) == []


def test_split_k_reads_through_tma_from_256_rows_with_tma_usable_operands():
    from tilelab.ops import matmul_hopper as hopper
    from tilelab.ops.matmul_plan import operand_layout

    a, b = torch.empty(1, 1024, 4096, dtype=torch.float16), torch.empty(1, 4096, 1024, dtype=torch.float16)
    aligned = (operand_layout(a), operand_layout(b))
    assert hopper.split_k_reads_through_tma(256, *aligned)
    assert hopper.split_k_reads_through_tma(1024, *aligned)
    assert not hopper.split_k_reads_through_tma(128, *aligned)  # shipped tuning measured through pointers
    odd = torch.empty(1, 4096, 1001, dtype=torch.float16)[..., :1001]  # 2002-byte rows: no descriptor
    assert not operand_layout(odd).tma_ok
    assert not hopper.split_k_reads_through_tma(1024, aligned[0], operand_layout(odd))


def test_split_k_candidates_offer_three_slices_where_they_fit():
    from tilelab.ops import matmul_hopper as hopper

    kept = hopper.split_k_candidates(768, 768, 16384, 1, 2, 132)
    assert any(c.split_k == 3 and (c.block_m, c.block_n) == (64, 128) for c in kept)  # 72 tiles x 3: two waves
    assert hopper.split_k_slices(16384, 64, 3) == [(0, 5504), (5504, 11008), (11008, 16384)]


@pytest.mark.parametrize("m,n,b_offset,path,expected", [
    (1000, 1000, 0, "splitk", True),  # B's rows of 2000 bytes: every other one 16 bytes into a sector
    (1024, 1024, 0, "splitk", False),  # rows on lines
    (1024, 1000, 0, "splitk", True),  # only B's width counts
    (1000, 1024, 0, "splitk", False),
    (1024, 1024, 8, "splitk", True),  # B's base 16 bytes into a sector (a view): so is every row
    (128, 1000, 0, "splitk", False),  # split-K through pointers: measured in the bucket's entries
    (1000, 1000, 0, "descriptor", False),  # one pass: A's row classes have their own entries
])
def test_split_k_through_tma_tunes_b_off_sectors_apart(m, n, b_offset, path, expected):
    """`_split_k_tiles_by_b_sectors`: 1000x1000x4000 must not take the 1024x1024x4096 bucket's tile."""
    a3 = torch.empty(1, m, 4000, dtype=torch.float16)
    b3 = torch.empty(1, 4000 * n + b_offset, dtype=torch.float16)[:, b_offset:].view(1, 4000, n)
    plan = matmul_plan.plan_matmul(a3, b3, path, "tf32", None)
    key = matmul_op._tuning_key(plan, a3, b3, torch.empty(1, 0, 0, dtype=torch.float16), m, n, 4000)
    assert key.endswith("|b-off-sectors") is expected
    assert key.split("|")[-1 - expected] == tuning.shape_bucket(m, n, 4000, fine=True)  # either way


@pytest.mark.parametrize("path,fallbacks", [("splitk", (None, None)), ("descriptor", ("1024x1024x16384", None)),
                                            ("persistent", ("1024x1024x16384", None))])
def test_buckets_are_half_octaves_with_a_power_of_two_fallback_except_for_split_k(path, fallbacks):
    """768 and 1024 rows make 36 and 64 tiles of 128x128: each has its own key; between powers of two a path
    falls back to the power of two's winner, except split-K, which tunes its own (`_fallback_key`)."""
    keys, found = [], []
    for size in (768, 1024):
        a3, b3 = torch.empty(1, size, 16384, dtype=torch.float16), torch.empty(1, 16384, size, dtype=torch.float16)
        plan = matmul_plan.plan_matmul(a3, b3, path, "tf32", None)
        args = (plan, a3, b3, torch.empty(1, 0, 0, dtype=torch.float16), size, size, 16384)
        keys.append(matmul_op._tuning_key(*args).split("|")[6])
        fallback = matmul_op._fallback_key(*args)
        found.append(fallback and fallback.split("|")[6])
    assert tuple(keys) == ("768x768x16384", "1024x1024x16384")
    assert tuple(found) == fallbacks


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("shape", [(16, 4096, 4096), (32, 4096, 4096), (64, 4096, 4096), (128, 4096, 4096),
                                   (128, 4096, 11008), (256, 4096, 4096), (256, 1024, 8192), (512, 1024, 8192),
                                   (512, 512, 8192), (768, 768, 16384), (1024, 1024, 4096), (1024, 1024, 8192)])
def test_shipped_split_k_winners_are_found_at_the_shapes_they_were_tuned_at(shape, dtype):
    """Every shipped split-K entry (tuned/h200.json) under the key its tuned shape makes (results/README.md
    names the tuning runs), so a change of buckets cannot orphan them."""
    m, n, k = shape
    key = f"NVIDIA H200|splitk|{dtype}|{dtype}|tf32|ab|{tuning.shape_bucket(m, n, k, fine=True)}"
    assert tuning.TuningCache(Path("/nonexistent/tuning.json")).get(key) is not None, key


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("shape", [(1536, 1536, 1536), (1536, 1536, 4096), (768, 3072, 4096), (768, 4096, 4096),
                                   (4096, 1536, 1536), (2048, 1536, 4096), (1024, 3072, 4096), (4096, 768, 4096)])
def test_shipped_wide_winners_are_found_at_their_shapes_and_are_candidates(shape, dtype):
    """The wide tiles pretuned at shapes between powers of two (results/h200-pretune-wide*.log) ship under the
    descriptor path's half-octave key, and each is a candidate that path can time (`tuning.WIDE_CANDIDATES`)."""
    m, n, k = shape
    key = f"NVIDIA H200|descriptor|{dtype}|{dtype}|tf32|ab|{tuning.shape_bucket(m, n, k, fine=True)}"
    config = tuning.TuningCache(Path("/nonexistent/tuning.json")).get(key)
    assert config is not None and tuning.is_wide(config), (key, config)
    assert config in matmul_op._candidates(2, m, n, 2, wide=True)


def test_shipped_descriptor_and_pointer_winners_are_tiles_their_kernels_take():
    """No shipped winner names a tile its path's kernel cannot run (`_check_tile`): wide tiles only on the
    descriptor path, powers of two elsewhere."""
    shipped = tuning.TuningCache(Path("/nonexistent/tuning.json"))._shipped
    for key, entry in shipped.items():
        path = key.split("|")[1]
        if path in ("pointer", "descriptor"):
            config = tuning.Config.from_dict(entry["config"])
            matmul_op._check_tile(config, path)
            assert not (tuning.is_wide(config) and path == "pointer"), key


def test_split_k_candidates_offer_tiles_that_read_b_fewer_times():
    """128x128 tiles in 2 slices: the off-sector winner at 1000x1000x4000 (results/h200-long-k-off-sector-probe.log)."""
    from tilelab.ops import matmul_hopper as hopper

    kept = hopper.split_k_candidates(1000, 1000, 4000, 1, 2, 132)
    assert any((c.block_m, c.block_n, c.block_k, c.num_warps, c.split_k) == (128, 128, 128, 8, 2) for c in kept)


def test_split_k_candidates_without_room_to_split():
    from tilelab.ops import matmul_hopper as hopper

    assert all(c.split_k == 1 for c in hopper.split_k_candidates(4096, 4096, 4096, 1, 2, 132))  # many tiles
    assert all(c.split_k == 1 for c in hopper.split_k_candidates(128, 4096, 4096, 32, 2, 132))  # a batch of them
    short = hopper.split_k_candidates(16, 4096, 256, 1, 2, 132)  # K of 2-4 steps: no finer split than that
    assert all(c.split_k <= triton.cdiv(256, c.block_k) for c in short) and any(c.split_k == 2 for c in short)
    wide = hopper.split_k_candidates(16, 2**27, 4096, 1, 2, 1 << 20)  # 2 slices of 16 x 2**27 overflow int32
    assert all(c.split_k == 1 for c in wide)


def test_descriptor_launch_falls_back_to_rebuilt_descriptors_without_a_c_launcher():
    """Where Triton's C launcher cannot be reached, a replay rebuilds TensorDescriptors for Triton to expand."""
    from types import SimpleNamespace

    from triton.tools.tensor_descriptor import TensorDescriptor

    calls = []
    run = SimpleNamespace(launch=lambda *args: calls.append(args), global_scratch_size=0, profile_scratch_size=0,
                          launch_cooperative_grid=False, launch_pdl=False)
    compiled = SimpleNamespace(run=run, metadata=SimpleNamespace(), packed_metadata="meta", function="fn")
    specs = (([64, 32], [32, 1], [16, 16], torch.float16), ([32, 48], [48, 1], [16, 16], torch.float16),
             ([64, 48], [48, 1], [16, 16], torch.float32))
    recorded = tuple(TensorDescriptor(bound_launch._Address(0, dtype), shape, strides, block)
                     for shape, strides, block, dtype in specs)
    launch = bound_launch.bind_descriptor_launch(compiled, (4, 1, 1), ("tail",), recorded)
    launch("stream", 1024, 2048, 4096)
    (args,) = calls
    descriptors = [x for x in args if isinstance(x, TensorDescriptor)]
    assert [d.base.data_ptr() for d in descriptors] == [1024, 2048, 4096]
    assert [(d.shape, d.strides, d.block_shape, d.base.dtype) for d in descriptors] == list(specs)
    assert args[:4] == (4, 1, 1, "stream") and args[-1] == "tail"

    calls.clear()  # pointer parameters after the descriptors (fp8's scales) go between them and the tail
    launch("stream", 1024, 2048, 4096, 77, 88)
    (args,) = calls
    assert args[-3:] == (77, 88, "tail") and isinstance(args[-4], TensorDescriptor)
