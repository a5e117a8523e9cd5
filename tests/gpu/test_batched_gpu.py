"""Batches with an A and a B per entry on a CUDA GPU: every path against float64, 3-D descriptors, the grid.

A batch's TMA paths describe each operand once, in 3-D (`tilelab.ops.descriptors.stored_descriptor`), and the
persistent kernel walks every matrix's tiles as one list (`matmul_hopper.persistent_grid`). An off-by-one
in the matrix index reads or writes a neighbouring matrix: each case compares every matrix with float64, on
outputs poisoned with NaN (padding included), so a matrix left unwritten or written twice fails.

Run on the H200 with: TILELAB_REQUIRE_GPU=1 PYTHONPATH=src python -m pytest tests/gpu/test_batched_gpu.py -q
"""

import pytest
import torch

import tilelab
from tests.helpers import assert_gradients_match, assert_graph_replays, assert_matches_reference, randn
from tilelab import contracts
from tilelab.ops import matmul as matmul_op
from tilelab.ops import matmul_hopper, matmul_plan

pytestmark = [pytest.mark.gpu]

# (batch, M, N, K): ragged tiles, one row, a K of one step, more matrices than SMs, many tiles per matrix.
SHAPES = [(3, 65, 136, 96), (5, 1, 64, 128), (2, 127, 40, 24), (200, 64, 64, 64), (4, 1000, 1000, 512)]
PATHS = [None, "pointer", "descriptor", "persistent", "splitk", "pingpong"]


def _b(batch, k, n, dtype, layout, rng):
    """B per entry, stored [batch, K, N] ("kn") or [batch, N, K] and passed transposed ("nk")."""
    if layout == "kn":
        return randn((batch, k, n), dtype, "cuda", rng)
    return randn((batch, n, k), dtype, "cuda", rng).transpose(1, 2)


@pytest.mark.usefixtures("poisoned_outputs")
@pytest.mark.parametrize("b_layout", ["kn", "nk"])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("batch,m,n,k", SHAPES)
def test_batch_with_b_per_entry(batch, m, n, k, path, dtype, b_layout, rng):
    if path == "pingpong" and dtype == torch.float32:
        pytest.skip("the ping-pong kernel takes fp16/bf16")
    a = randn((batch, m, k), dtype, "cuda", rng)
    b = _b(batch, k, n, dtype, b_layout, rng)
    out = tilelab.matmul(a, b, path=path)
    assert out.shape == (batch, m, n)
    assert_matches_reference(out, a, b, label=f"{path} {batch}x{m}x{n}x{k} {dtype} B {b_layout}")


@pytest.mark.usefixtures("poisoned_outputs")
@pytest.mark.parametrize("path", ["descriptor", "persistent", "splitk", "pingpong"])
def test_operands_shared_or_stored_otherwise(path, rng):
    """A shared by the batch (2-D descriptor beside 3-D ones); A's batch not outermost with a shared B (no fold);
    A stored [K, M] per entry (which the ping-pong kernel refuses); a batch with two batch dimensions that
    broadcast."""
    batch, m, n, k = 4, 96, 80, 64
    cases = {
        "shared A": (randn((m, k), torch.float16, "cuda", rng), randn((batch, k, n), torch.float16, "cuda", rng)),
        "A's batch inner, B shared": (randn((m, batch, k), torch.float16, "cuda", rng).transpose(0, 1),
                                      randn((k, n), torch.float16, "cuda", rng)),
        "A stored [K, M]": (randn((batch, k, m), torch.float16, "cuda", rng).transpose(1, 2),
                            randn((batch, k, n), torch.float16, "cuda", rng)),
        "broadcast batch dims": (randn((2, 1, m, k), torch.float16, "cuda", rng),
                                 randn((3, k, n), torch.float16, "cuda", rng)),
    }
    for label, (a, b) in cases.items():
        if path == "pingpong" and label == "A stored [K, M]":
            with pytest.raises(contracts.ContractError, match="a must be row-major"):
                tilelab.matmul(a, b, path=path)
            continue
        assert_matches_reference(tilelab.matmul(a, b, path=path), a, b, label=f"{path}: {label}")


@pytest.mark.usefixtures("poisoned_outputs")
@pytest.mark.parametrize("path", ["persistent", "pingpong"])
@pytest.mark.parametrize("batch", [8, 7, 300])
def test_persistent_grid_fits_the_sms_and_covers_every_matrix(batch, path, rng):
    m, n, k = 512, 768, 128
    a = randn((batch, m, k), torch.float16, "cuda", rng)
    b = randn((batch, k, n), torch.float16, "cuda", rng)
    plan = matmul_op.describe_plan(a, b, path=path)
    assert plan["host_descriptors"]
    assert plan["programs"] <= matmul_hopper.device_sms(a.device)
    assert_matches_reference(tilelab.matmul(a, b, path=path), a, b, label=f"{path}, batch {batch}")


def test_batched_replays_and_graphs(rng, monkeypatch):
    """A recorded batched launch replays on new inputs (3-D tensor maps from TensorMapCache) and captures."""
    monkeypatch.setattr(matmul_op, "_REPLAYS", {})  # the real cache, emptied
    batch, m, n, k = 6, 256, 192, 128
    for path in ("descriptor", "persistent", "pingpong"):
        a = randn((batch, m, k), torch.float16, "cuda", rng)
        b = randn((batch, k, n), torch.float16, "cuda", rng)
        tilelab.matmul(a, b, path=path)  # records (and tunes outside capture)
        for _ in range(2):
            a2 = randn((batch, m, k), torch.float16, "cuda", rng)
            torch.full((1 << 22,), float("nan"), device="cuda")  # freed NaNs: the allocator hands them out next
            assert_matches_reference(tilelab.matmul(a2, b, path=path), a2, b, label=f"{path} replay")
        assert_graph_replays(lambda a, b, path=path: tilelab.matmul(a, b, path=path), (a, b), rng,
                             label=f"{path} graph replay")


@pytest.mark.parametrize("path", [None, "pingpong"])
def test_batched_gradients(path, rng):
    """The forward on the path asked for; the gradients plan their own (dB multiplies by A^T, stored [K, M],
    which the pingpong kernel does not take)."""
    a = randn((3, 200, 96), torch.bfloat16, "cuda", rng).requires_grad_()
    b = randn((3, 96, 136), torch.bfloat16, "cuda", rng).requires_grad_()
    assert_gradients_match(lambda a, b: tilelab.matmul(a, b, path=path), a, b, rng)


@pytest.mark.usefixtures("poisoned_outputs")
@pytest.mark.parametrize("batch,m,n,k,expected", [
    (8, 1024, 1024, 512, "pingpong"),  # rows on sectors, 512 tiles
    (16, 1000, 1000, 1000, "persistent"),  # rows off sectors
    (2, 1024, 1024, 1024, "descriptor"),  # 128 tiles of 128x128: one per SM
])
def test_default_path_of_a_batch(batch, m, n, k, expected, rng):
    from tilelab.ops import gluon_launch, matmul_pingpong

    sms = matmul_hopper.device_sms(torch.device("cuda"))
    if sms != 132:
        pytest.skip("the choices measured on the H200's 132 SMs")
    a = randn((batch, m, k), torch.bfloat16, "cuda", rng)
    b = randn((batch, k, n), torch.bfloat16, "cuda", rng)
    plan = matmul_op.describe_plan(a, b)
    assert plan["path"] == expected
    if expected == "pingpong":
        assert plan["programs"] == gluon_launch.persistent_programs(m, n, matmul_pingpong.DEFAULT_CONFIG, sms, batch)
    assert_matches_reference(tilelab.matmul(a, b), a, b, label=f"default {batch}x{m}x{n}x{k}")


@pytest.mark.usefixtures("poisoned_outputs")
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("batch,m,n,k,classes", [
    (16, 1000, 1000, 1000, 8),  # a default batch: the persistent kernel, by class
    (3, 1002, 1000, 3000, 2),  # M divisible by 2 only; K longer than B's rows are wide
])
def test_batches_off_sectors_are_read_in_classes_by_every_config(batch, m, n, k, classes, dtype, rng, monkeypatch):
    """Every persistent config the tuner may choose in classes (A and C in 4-D), the descriptor kernel in
    classes, then the default call, its replay through the same 4-D descriptors, and a CUDA graph replayed
    twice; each matrix against float64."""
    monkeypatch.setattr(matmul_op, "_REPLAYS", {})  # the real cache, emptied (the fixture disables it)
    a = randn((batch, m, k), dtype, "cuda", rng)
    b = randn((batch, k, n), dtype, "cuda", rng)
    plan = matmul_plan.plan_matmul(a, b, "persistent", "tf32", None)
    assert plan.row_classes == classes
    for config in matmul_op.persistent_candidates(plan, m, n, 2):
        out = tilelab.matmul(a, b, path="persistent", config=config)
        assert_matches_reference(out, a, b, label=f"persistent {config.label()} in {classes} classes")
    config = tilelab.Config(128, 256, 64, 8, num_warps=8, num_stages=3)
    assert matmul_op.describe_plan(a, b, path="descriptor", config=config)["row_classes"] == classes
    assert_matches_reference(tilelab.matmul(a, b, path="descriptor", config=config), a, b, label="descriptor")
    matmul_op._REPLAYS.clear()  # each explicit config recorded a launch of its own
    first = tilelab.matmul(a, b)
    default = matmul_op.describe_plan(a, b)
    assert default["path"] == "persistent" and default["row_classes"] == classes
    (replay,) = matmul_op._REPLAYS.values()
    a2, b2 = randn((batch, m, k), dtype, "cuda", rng), randn((batch, k, n), dtype, "cuda", rng)
    assert_matches_reference(first, a, b, label="recorded call")
    assert_matches_reference(replay(a2, b2), a2, b2, label="replay through 4-D descriptors")
    assert_graph_replays(lambda x, y: tilelab.matmul(x, y), (a, b), rng)


@pytest.mark.usefixtures("poisoned_outputs")
@pytest.mark.parametrize("path", ["descriptor", "persistent", "pingpong"])
def test_matrices_past_int32_offsets(path, rng):
    """A's last matrix starts 2**31 elements in (5.4 GB of fp16): a 3-D descriptor's batch coordinate must
    reach it, where a 32-bit element offset would wrap to the first matrices."""
    batch, m, n, k = 5, 2**18, 64, 2048  # each matrix of A is 2**29 elements
    a = torch.empty((batch, m, k), dtype=torch.float16, device="cuda")
    a.normal_()
    b = randn((batch, k, n), torch.float16, "cuda", rng)
    out = tilelab.matmul(a, b, path=path)
    tail = slice(m - 300, m)
    assert_matches_reference(out[-1, tail], a[-1, tail], b[-1], label=f"{path}: the matrix past 2**31 elements")
    del a
