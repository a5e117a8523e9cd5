"""tilelab.matmul on a CUDA GPU: bf16, the fp32 precisions against torch, every tunable config, huge offsets.

Run on the H200 with: TILELAB_REQUIRE_GPU=1 PYTHONPATH=src python -m pytest tests/gpu -q
"""

import pytest
import torch

import tilelab
from tests.helpers import assert_gradients_match, assert_graph_replays, assert_matches_reference, randn
from tilelab import tuning
from tilelab.ops import bound_launch
from tilelab.ops import matmul as matmul_op
from tilelab.reference import matmul_reference, relative_error

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("poisoned_outputs")]

SHAPES = [(1, 1, 1), (5, 7, 5), (127, 255, 65), (64, 64, 64), (1000, 1000, 1000), (16, 4096, 4096), (2048, 512, 4096)]


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
@pytest.mark.parametrize("path", [None, "pointer", "descriptor", "persistent", "splitk"])
@pytest.mark.parametrize("m,n,k", SHAPES)
def test_shapes_paths_dtypes(m, n, k, path, dtype, rng):
    a = randn((m, k), dtype, "cuda", rng)
    # Column-major B keeps every shape TMA-eligible when N*size is not a 16-byte multiple.
    b = randn((n, k), dtype, "cuda", rng).t()
    if path in ("descriptor", "persistent") and (k * a.element_size()) % 16 and k > 1 and (m > 1 or n > 1):
        with pytest.raises(tilelab.AlignmentError):
            tilelab.matmul(a, b, path=path)
        return
    assert_matches_reference(tilelab.matmul(a, b, path=path), a, b, label=f"{path} {m}x{n}x{k} {dtype}")


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_batched_views_on_gpu(dtype, rng):
    a = randn((3, 1, 96, 80), dtype, "cuda", rng)
    b = randn((4, 72, 80), dtype, "cuda", rng).transpose(-1, -2)
    assert_matches_reference(tilelab.matmul(a, b), a, b, label="batched")


def test_precision_ladder_against_torch(rng):
    """tf32 is least accurate, tf32x3 close to ieee; torch (tf32 off) sits with ieee."""
    a = randn((512, 2048), torch.float32, "cuda", rng)
    b = randn((2048, 512), torch.float32, "cuda", rng)
    ref = matmul_reference(a, b)
    errors = {p: relative_error(tilelab.matmul(a, b, precision=p), ref) for p in ("tf32", "tf32x3", "ieee")}
    previous = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False
    try:
        errors["torch"] = relative_error(torch.mm(a, b), ref)
    finally:
        torch.backends.cuda.matmul.allow_tf32 = previous
    print("relative errors:", {k: f"{v:.2e}" for k, v in errors.items()})
    assert errors["tf32"] > 10 * errors["tf32x3"], errors
    assert errors["tf32x3"] < 10 * errors["ieee"] and errors["ieee"] < 1e-5, errors
    assert errors["torch"] < 1e-5, errors


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("m,n,k,expected", [
    (2600, 2600, 2600, "descriptor"),  # 5200-byte rows, 16 bytes into a sector: one program per tile
    (2600, 2624, 2624, "persistent"),  # 5248-byte rows: on sectors
])
def test_large_problems_on_rows_off_sectors_take_the_descriptor_path(m, n, k, expected, dtype, rng):
    a = randn((m, k), dtype, "cuda", rng)
    b = randn((k, n), dtype, "cuda", rng)
    assert matmul_op.describe_plan(a, b)["path"] == expected
    assert_matches_reference(tilelab.matmul(a, b), a, b, label=f"{m}x{n}x{k} {dtype}")


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_split_k_on_rows_of_1000_elements_loads_whole_vectors(dtype, rng):
    from tilelab.ops import matmul_hopper

    a = randn((128, 8192), dtype, "cuda", rng)
    b = randn((8192, 1000), dtype, "cuda", rng)
    assert matmul_op.describe_plan(a, b)["path"] == "splitk"
    c = torch.empty(1, 128, 1000, dtype=dtype, device="cuda")
    assert matmul_hopper.split_k_align(a[None], b[None], c, 1000, 8192) == 8
    assert_matches_reference(tilelab.matmul(a, b), a, b, label=f"split-K 128x1000x8192 {dtype}")


def _tunable():
    """Every (path, dtype, config) the tuner may choose, for skinny and large problems."""
    cases = {}
    for dtype in (torch.float16, torch.float32):
        size = torch.finfo(dtype).bits // 8
        for path, out_size in (("pointer", 0), ("descriptor", size)):
            for m in (16, 4096):
                for cfg in matmul_op._candidates(size, m, 4096, out_size, wide=path == "descriptor"):
                    cases[(path, dtype, cfg)] = f"{path}-{str(dtype)[6:]}-{cfg.label()}"
    return cases


@pytest.mark.parametrize("path,dtype,config", list(_tunable()), ids=list(_tunable().values()))
def test_every_tunable_config(config, dtype, path, rng):
    a = randn((300, 320), dtype, "cuda", rng)
    b = randn((320, 272), dtype, "cuda", rng)
    out = tilelab.matmul(a, b, config=config, path=path)
    assert_matches_reference(out, a, b, label=f"{config.label()} {path}")


def test_offsets_past_int32(rng):
    # A is 2**31 + 2**17 fp16 elements (4 GiB): offsets of its last rows overflow int32.
    m, k = 2**31 // 4096 + 32, 4096
    a = torch.empty((m, k), dtype=torch.float16, device="cuda")
    a.normal_()
    b = randn((k, 64), torch.float16, "cuda", rng)
    out = tilelab.matmul(a, b, path="pointer")
    assert matmul_op.describe_plan(a, b, path="pointer")["offsets_64"]
    tail = slice(m - 300, m)
    assert_matches_reference(out[tail], a[tail], b, label="rows past 2**31 elements")
    del a


@pytest.mark.parametrize("m,n,k", [(256, 384, 512), (16, 4096, 4096)])  # pointer; split-K (auto)
def test_cuda_graph_capture_uses_cached_choice(m, n, k, rng):
    a = randn((m, k), torch.float16, "cuda", rng)
    b = randn((k, n), torch.float16, "cuda", rng)
    tilelab.matmul(a, b)  # tunes outside capture
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = tilelab.matmul(a, b)
    for _ in range(2):  # the split-K tile counters must be back at zero for the second replay
        a.copy_(randn((m, k), torch.float16, "cuda", rng))
        graph.replay()
        torch.cuda.synchronize()
        assert_matches_reference(out, a, b, label="graph replay")


@pytest.mark.parametrize("batch", [(), (2,)])
@pytest.mark.parametrize("path", ["pointer", "descriptor", "persistent", "splitk"])
def test_replayed_launch_computes_new_inputs(path, batch, rng, monkeypatch):
    """The second call with the same operand signature skips planning: it must still compute, into fresh memory."""
    monkeypatch.setattr(matmul_op, "_REPLAYS", {})  # the real cache, emptied (the fixture disables it)
    def operands():  # B column-major so that every path accepts N=255
        return (randn((*batch, 127, 64), torch.float16, "cuda", rng),
                randn((*batch, 255, 64), torch.float16, "cuda", rng).transpose(-1, -2))

    a1, b1 = operands()
    first = tilelab.matmul(a1, b1, path=path)
    (replay,) = matmul_op._REPLAYS.values()
    # The TMA paths replay with descriptors (3-D for a batch) rebuilt on the host; not a warp-specialized
    # persistent config (persistent_host_descriptors), whose programs build their own.
    host_built = matmul_op.describe_plan(a1, b1, path=path)["host_descriptors"]
    if path != "persistent":
        assert host_built == (path == "descriptor")
    assert replay.host_descriptors == host_built
    a2, b2 = operands()
    torch.full((1 << 22,), float("nan"), device="cuda")  # freed NaNs: the allocator hands them out next
    second = tilelab.matmul(a2, b2, path=path)
    assert second.data_ptr() != first.data_ptr()
    assert_matches_reference(first, a1, b1, label="first call")
    assert_matches_reference(second, a2, b2, label="replayed call")
    assert second.stride() == first.stride() and second.shape == first.shape


def test_descriptor_replays_reuse_tensor_maps_through_the_c_launcher(rng, monkeypatch):
    """A replay of a host-descriptor launch goes through TensorMapCache (not Triton's descriptor expansion)."""
    monkeypatch.setattr(matmul_op, "_REPLAYS", {})  # the real cache, emptied (the fixture disables it)
    seen, real = [], bound_launch.TensorMapCache.arguments

    def spy(self, *addresses):
        seen.append(addresses)
        return real(self, *addresses)

    monkeypatch.setattr(bound_launch.TensorMapCache, "arguments", spy)
    a = randn((256, 128), torch.float16, "cuda", rng)
    b = randn((128, 320), torch.float16, "cuda", rng)
    tilelab.matmul(a, b, path="descriptor")  # records the launch
    for _ in range(2):
        out = tilelab.matmul(a, b, path="descriptor")
        assert seen and seen[-1][:2] == (a.data_ptr(), b.data_ptr())
        assert_matches_reference(out, a, b, label="descriptor replay")
    a.copy_(randn((256, 128), torch.float16, "cuda", rng))  # same address, new values: the map still holds
    assert_matches_reference(tilelab.matmul(a, b, path="descriptor"), a, b, label="same address, new values")


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_gradients_on_gpu(dtype, rng):
    a = randn((256, 384), dtype, "cuda", rng).requires_grad_()
    b = randn((384, 200), dtype, "cuda", rng).requires_grad_()
    assert_gradients_match(tilelab.matmul, a, b, rng)


def test_pretune_persistent_then_reuse(rng, monkeypatch, tmp_path):
    monkeypatch.setattr(tuning, "_cache", tuning.TuningCache(tmp_path / "tuning.json"))
    records = matmul_op.pretune([(2048, 2048, 1024)], (torch.float16,), paths=("persistent",))
    assert len(records) == 1 and records[0]["path"] == "persistent"
    a = randn((2048, 1024), torch.float16, "cuda", rng)
    b = randn((1024, 2048), torch.float16, "cuda", rng)
    assert matmul_op.describe_plan(a, b, path="persistent")["config"] == records[0]["config"]
    assert_matches_reference(tilelab.matmul(a, b, path="persistent"), a, b, label="pre-tuned persistent")


@pytest.mark.parametrize("size", [1000, 3000])
def test_aligned_inputs_are_read_as_they_are(size, rng):
    """`tilelab.to_aligned` puts 1000- and 3000-wide fp16 rows on lines (they start 16 bytes into a sector as
    allocated); tilelab reads them without a copy, and 3000^3 then takes what rows off sectors are kept from
    (`_persistent_pays_off`, `_wide_tiles_fill_better`): wide tiles, which fill the SMs' waves better than the
    ping-pong kernel's 128x128 ones (3 of 128x192 per SM against 5)."""
    a = tilelab.to_aligned(randn((size, size), torch.float16, "cuda", rng))
    b = tilelab.to_aligned(randn((size, size), torch.float16, "cuda", rng))
    assert a.stride(0) > size and tilelab.rows_aligned(a) and tilelab.rows_aligned(b)
    plan = matmul_op.describe_plan(a, b)
    assert plan["a_row_major"] and plan["b_row_major"]
    if size == 3000:
        assert (plan["path"], plan["config"]) == ("descriptor", tuning.WIDE_CANDIDATES[0].as_dict())
        unaligned = matmul_op.describe_plan(a.contiguous(), b.contiguous())
        assert unaligned["path"] == "descriptor" and unaligned["row_classes"] > 1
    assert_matches_reference(tilelab.matmul(a, b), a, b, label=f"aligned {size}^3")


@pytest.mark.parametrize("m", [16, 128])
def test_skinny_problems_take_split_k_and_every_split_config_is_right(m, rng):
    from tilelab.ops import matmul_hopper

    a = randn((m, 4096), torch.float16, "cuda", rng)
    b = randn((4096, 4096), torch.float16, "cuda", rng)
    assert matmul_op.describe_plan(a, b)["path"] == "splitk"
    for config in matmul_hopper.prune(matmul_hopper.SPLIT_K_CANDIDATES, m, 4096, 2, 0):
        assert_matches_reference(tilelab.matmul(a, b, path="splitk", config=config), a, b, label=config.label())
    assert all(int(c.abs().sum()) == 0 for c in matmul_hopper._SPLIT_K_COUNTERS.values()), "counters left set"


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("m,n,k", [(1024, 1024, 4096), (260, 200, 2056)])  # ragged: 260 rows, 200 columns
def test_tall_long_k_split_k_reads_through_tma_and_replays(m, n, k, dtype, rng, monkeypatch):
    from tilelab.ops import matmul_hopper

    monkeypatch.setattr(matmul_op, "_REPLAYS", {})  # the real cache, emptied (the fixture disables it)
    a = randn((m, k), dtype, "cuda", rng)
    b = randn((k, n), dtype, "cuda", rng)
    plan = matmul_op.describe_plan(a, b)
    assert plan["path"] == "splitk" and plan["host_descriptors"]
    configs = matmul_hopper.split_k_candidates(m, n, k, 1, 2, matmul_hopper.device_sms(a.device))
    assert {1, 2, 3} <= {c.split_k for c in configs}
    for config in configs[::3] + [c for c in configs if c.split_k == 3][:2]:
        assert_matches_reference(tilelab.matmul(a, b, path="splitk", config=config), a, b, label=config.label())
    first = tilelab.matmul(a, b)  # tunes, then records the launch
    replay = next(r for r in matmul_op._REPLAYS.values() if r.split_k is not None and r.host_descriptors)
    a2, b2 = randn((m, k), dtype, "cuda", rng), randn((k, n), dtype, "cuda", rng)
    second = replay(a2, b2)
    assert_matches_reference(first, a, b, label="recorded call")
    assert_matches_reference(second, a2, b2, label="replay through host-built descriptors")
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        captured = tilelab.matmul(a, b)
    for _ in range(2):  # split-K's tile counters must be back at zero for the second replay
        a.copy_(randn((m, k), dtype, "cuda", rng))
        graph.replay()
        torch.cuda.synchronize()
        assert_matches_reference(captured, a, b, label="graph replay")
    assert all(int(c.abs().sum()) == 0 for c in matmul_hopper._SPLIT_K_COUNTERS.values()), "counters left set"


def test_a_shape_between_powers_of_two_takes_the_coarse_winner_until_pretuned(rng, monkeypatch, tmp_path):
    """384^3: its half-octave key is not shipped, so a call takes the 512^3 bucket's winner untimed; pretune tunes
    384^3's own key, which later calls then take (`_fallback_key`, `tuning.exploring`)."""
    monkeypatch.setattr(tuning, "_cache", tuning.TuningCache(tmp_path / "tuning.json"))  # the shipped table too
    monkeypatch.setattr(matmul_op, "_REPLAYS", {})
    assert not any(key.endswith("|384x384x384") for key in tuning.cache()._shipped), "pick a shape not shipped"
    a, b = randn((384, 384), torch.float16, "cuda", rng), randn((384, 384), torch.float16, "cuda", rng)
    assert_matches_reference(tilelab.matmul(a, b), a, b, label="untuned: the coarse winner")
    assert not tuning.cache()._entries, "a call between powers of two timed candidates"
    tilelab.pretune([(384, 384, 384)], (torch.float16,), paths=(None,))
    assert any(key.endswith("|384x384x384") for key in tuning.cache()._entries), tuning.cache()._entries
    assert_matches_reference(tilelab.matmul(a, b), a, b, label="pretuned at its own bucket")


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_long_k_with_b_off_sectors_tunes_apart_and_every_tall_split_is_right(dtype, rng, monkeypatch):
    """1000x1000x4000: B's rows 16 bytes into a sector every other row; split-K tunes under its own key
    ("...|b-off-sectors"), among tiles that include 128x128x128 in 1 to 4 slices."""
    from tilelab.ops import matmul_hopper

    monkeypatch.setattr(matmul_op, "_REPLAYS", {})
    m, n, k = 1000, 1000, 4000
    a = randn((m, k), dtype, "cuda", rng)
    b = randn((k, n), dtype, "cuda", rng)
    plan = matmul_op.describe_plan(a, b)
    assert plan["path"] == "splitk" and plan["host_descriptors"]
    configs = matmul_hopper.split_k_candidates(m, n, k, 1, 2, matmul_hopper.device_sms(a.device))
    tall = [c for c in configs if (c.block_m, c.block_n) == (128, 128)]
    assert {c.split_k for c in tall} >= {1, 2, 3, 4}
    for config in tall:
        assert_matches_reference(tilelab.matmul(a, b, path="splitk", config=config), a, b, label=config.label())
    assert_matches_reference(tilelab.matmul(a, b), a, b, label="tuned")
    known = {**tuning.cache()._shipped, **tuning.cache()._entries}  # tuned now, or shipped for the H200
    keys = [key for key in known if key.endswith(f"|{tuning.shape_bucket(m, n, k, fine=True)}|b-off-sectors")]
    assert any(f"|splitk|{str(dtype)[6:]}|" in key for key in keys), keys
    assert all(int(c.abs().sum()) == 0 for c in matmul_hopper._SPLIT_K_COUNTERS.values()), "counters left set"


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("m,n,k,classes", [
    (1000, 1000, 1000, 8),  # a default shape: 2000-byte rows
    (1002, 1000, 3000, 2),  # M divisible by 2 only; K longer than B's rows are wide
    (3000, 3000, 3000, 8),
])
def test_rows_off_sectors_are_read_in_classes_by_every_config(m, n, k, classes, dtype, rng, monkeypatch):
    """Every descriptor config the tuner may choose, through A's row classes; then the default (tuned) call,
    its replay through host-built 3-D descriptors, and a CUDA graph replayed twice."""
    monkeypatch.setattr(matmul_op, "_REPLAYS", {})  # the real cache, emptied (the fixture disables it)
    a = randn((m, k), dtype, "cuda", rng)
    b = randn((k, n), dtype, "cuda", rng)
    plan = matmul_op.describe_plan(a, b, path="descriptor")
    assert plan["row_classes"] == classes and plan["host_descriptors"]
    if m != 1002:  # split-K's few tiles take 1002x1000x3000
        assert matmul_op.describe_plan(a, b)["path"] == "descriptor"
    for config in matmul_op._candidates(2, m, n, 2):
        out = tilelab.matmul(a, b, path="descriptor", config=config)
        assert_matches_reference(out, a, b, label=f"{config.label()} in {classes} classes")
    matmul_op._REPLAYS.clear()  # each explicit config recorded a launch of its own
    first = tilelab.matmul(a, b, path="descriptor")  # tunes, then records the launch
    (replay,) = matmul_op._REPLAYS.values()
    assert replay.host_descriptors
    a2, b2 = randn((m, k), dtype, "cuda", rng), randn((k, n), dtype, "cuda", rng)
    assert_matches_reference(first, a, b, label="recorded call")
    assert_matches_reference(replay(a2, b2), a2, b2, label="replay through 3-D descriptors")
    assert_graph_replays(lambda x, y: tilelab.matmul(x, y, path="descriptor"), (a, b), rng)


def test_tf32x3_copies_a_row_major_b_to_k_major(rng):
    a = randn((1024, 2048), torch.float32, "cuda", rng)
    b = randn((2048, 768), torch.float32, "cuda", rng)
    assert matmul_op.describe_plan(a, b, precision="tf32x3")["b_row_major"] is False
    assert matmul_op.describe_plan(a, b, precision="ieee")["b_row_major"] is True  # ieee: no wgmma, no copy
    # tf32 on Hopper takes B as stored (the registers path, tests/gpu/test_registers_gpu.py); the copy otherwise.
    assert matmul_op.describe_plan(a, b, path="persistent")["b_row_major"] is False
    for precision in ("tf32", "tf32x3"):
        assert_matches_reference(tilelab.matmul(a, b, precision=precision), a, b, precision=precision,
                                 label=precision)


@pytest.mark.parametrize("b_shape", [(2048, 768), (3, 2048, 768)])
def test_tf32_replay_copies_the_new_b(b_shape, rng, monkeypatch):
    """A replayed tf32x3 call re-runs the K-major copy of B: a stale copy would multiply by the first call's B.
    (tf32 itself copies B only off Hopper, or for a B per batch entry.)"""
    monkeypatch.setattr(matmul_op, "_REPLAYS", {})  # the real cache, emptied (the fixture disables it)
    a1, a2 = (randn((3, 1024, 2048), torch.float32, "cuda", rng) for _ in range(2))
    b1, b2 = (randn(b_shape, torch.float32, "cuda", rng) for _ in range(2))
    first = tilelab.matmul(a1, b1, precision="tf32x3")
    (replay,) = matmul_op._REPLAYS.values()
    assert replay.b_copy is not None
    torch.full((1 << 24,), float("nan"), device="cuda")  # freed NaNs: the allocator hands them out next
    second = tilelab.matmul(a2, b2, precision="tf32x3")
    assert_matches_reference(first, a1, b1, precision="tf32x3", label="first call")
    assert_matches_reference(second, a2, b2, precision="tf32x3", label="replayed call")


@pytest.mark.parametrize("config", tuning.WIDE_CANDIDATES, ids=lambda c: c.label())
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("batch,b_k_major", [((), False), ((), True), ((3,), False)])
def test_wide_tiles_replay_and_capture(config, dtype, batch, b_k_major, rng, monkeypatch):
    """A wide tile's launch describes B and C twice (`_kernel_args`); its replay passes their new addresses
    twice (`_addresses_twice`), and a CUDA graph captures it."""
    monkeypatch.setattr(matmul_op, "_REPLAYS", {})  # the real cache, emptied (the fixture disables it)

    def operands():  # 1000 columns: the last tile's 1/3 block lies wholly past N
        b = randn((*batch, 1000, 520), dtype, "cuda", rng).transpose(-1, -2) if b_k_major else \
            randn((*batch, 520, 1000), dtype, "cuda", rng)
        return randn((*batch, 300, 520), dtype, "cuda", rng), b

    a1, b1 = operands()
    first = tilelab.matmul(a1, b1, config=config)
    (replay,) = matmul_op._REPLAYS.values()
    assert replay.host_descriptors
    a2, b2 = operands()
    torch.full((1 << 22,), float("nan"), device="cuda")  # freed NaNs: the allocator hands them out next
    second = tilelab.matmul(a2, b2, config=config)
    assert_matches_reference(first, a1, b1, label="first call")
    assert_matches_reference(second, a2, b2, label="replayed call")
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        captured = tilelab.matmul(a1, b1, config=config)
    a1.copy_(a2)
    b1.copy_(b2)
    graph.replay()
    torch.cuda.synchronize()
    assert_matches_reference(captured, a2, b2, label="graph replay")
