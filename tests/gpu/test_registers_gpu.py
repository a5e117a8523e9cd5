"""The registers path (tf32, row-major B through registers; a Gluon kernel) on a Hopper GPU, against float64.

Run on the H200 with: TILELAB_REQUIRE_GPU=1 PYTHONPATH=src:. python -m pytest tests/gpu/test_registers_gpu.py -q
"""

import pytest
import torch

import tilelab
from tests.helpers import assert_gradients_match, assert_graph_replays, assert_matches_reference, randn
from tilelab import contracts
from tilelab.ops import gluon_launch
from tilelab.ops import matmul as matmul_op
from tilelab.ops import matmul_registers as registers
from tilelab.reference import relative_error

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("hopper_only", "poisoned_outputs")]



# Ragged in every dimension: odd and even K step counts (K / 32 = 2, 3, 22, 32), one partial tile,
# more tiles than SMs (4096^2: 512 tiles on 128 programs), rows N and K multiples of 4 (16-byte rows).
SHAPES = [(1, 4, 4), (7, 12, 8), (64, 8, 4), (257, 520, 36), (300, 260, 80), (1000, 1000, 1000),
          (2100, 1500, 700), (4096, 4096, 4096)]


@pytest.mark.parametrize("m,n,k", SHAPES)
def test_registers_against_float64(m, n, k, rng):
    a = randn((m, k), torch.float32, "cuda", rng)
    b = randn((k, n), torch.float32, "cuda", rng)
    assert_matches_reference(tilelab.matmul(a, b, path="registers"), a, b, precision="tf32",
                             label=f"registers {m}x{n}x{k}")


@pytest.mark.parametrize("config", registers.CONFIGS, ids=lambda c: c.tag())
@pytest.mark.parametrize("m,n,k", [(1, 4, 4), (65, 124, 36), (300, 260, 1000), (1000, 1000, 1000)])
def test_every_configuration_against_float64(config, m, n, k, rng):
    """Each tile `choose_config` may pick, launched directly: partial tiles in both directions, odd and even K
    step counts (K / 32 = 1, 2, 32, 32), and more tiles than programs at 1000^3 for the small tiles. Rows of A, B
    and C are 16-byte multiples, as TMA needs (`unsupported_reason` sends other rows elsewhere)."""
    a = randn((m, k), torch.float32, "cuda", rng)
    b = randn((k, n), torch.float32, "cuda", rng)
    c = torch.full((m, n), float("nan"), device="cuda")
    registers.launch(a, b, c, config, torch.cuda.get_device_properties(0).multi_processor_count)
    assert_matches_reference(c, a, b, precision="tf32", label=f"{config.tag()} {m}x{n}x{k}")


@pytest.mark.parametrize("m,n,k", [(7, 12, 8), (300, 260, 80), (1000, 1000, 1000), (2100, 1500, 700)])
def test_b_rounded_to_tf32(m, n, k, rng):
    """`round_b`: B rounded to nearest in registers. Rounding has no bias, truncation does (toward zero), so
    over K products the rounded result is the closer one."""
    a = randn((m, k), torch.float32, "cuda", rng)
    b = randn((k, n), torch.float32, "cuda", rng)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    results = {}
    for round_b in (False, True):
        c = torch.full((m, n), float("nan"), device="cuda")
        registers.launch(a, b, c, registers.RegistersConfig(round_b=round_b), sms)
        results[round_b] = assert_matches_reference(c, a, b, precision="tf32", label=f"round_b={round_b}")
    if k >= 700:
        assert results[True] < results[False], results
    reference = a.double() @ b.double()
    assert relative_error(tilelab.matmul(a, b, path="registers"), reference) == pytest.approx(
        results[registers.DEFAULT_CONFIG.round_b], rel=1e-6)


@pytest.mark.parametrize("m,n,k,tag", [(512, 4096, 256, "256x64x32-w4-s5"), (2048, 2048, 512, "256x128x32-w8-s4"),
                                       (4096, 4096, 4096, "256x128x32-w8-s4"), (1000, 1000, 1000, "128x64x32-w4-s6"),
                                       (512, 512, 512, "64x64x32-w4-s12")])
def test_default_for_tf32_when_its_tiles_fill_the_sms(m, n, k, tag, rng):
    """The tiles `choose_config` picks on the H200's 132 SMs (the largest that fill them), run by default."""
    a = randn((m, k), torch.float32, "cuda", rng)
    b = randn((k, n), torch.float32, "cuda", rng)
    plan = matmul_op.describe_plan(a, b)
    assert plan["path"] == "registers" and plan["b_row_major"] is True  # no K-major copy of B
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    config = registers.choose_config(m, n, sms)
    assert plan["config"] == config.as_dict()
    assert plan["programs"] == gluon_launch.persistent_programs(m, n, config, sms)
    if sms == 132:
        assert config.tag() == tag
    assert_matches_reference(tilelab.matmul(a, b), a, b, precision="tf32", label="default")


@pytest.mark.parametrize("m,n,k,expected", [(16, 4096, 4096, "splitk"), (128, 4096, 4096, "registers"),
                                            (48, 4096, 4096, "registers"), (2048, 128, 8192, "splitk")])
def test_skinny_tf32_between_split_k_and_registers(m, n, k, expected, rng):
    """Problems split-K applies to: the registers kernel takes those whose B is the larger operand, from 48 rows
    (`matmul_registers.beats_split_k`)."""
    a = randn((m, k), torch.float32, "cuda", rng)
    b = randn((k, n), torch.float32, "cuda", rng)
    assert matmul_op.describe_plan(a, b)["path"] == expected
    assert_matches_reference(tilelab.matmul(a, b), a, b, precision="tf32", label=f"{m}x{n}x{k} {expected}")


def test_few_tiles_keep_the_copy_of_b(rng):
    """300x260 makes 25 tiles of 64x64, too few to fill 0.4 of the SMs: the copy of B (or no copy at all)."""
    a = randn((300, 1000), torch.float32, "cuda", rng)
    b = randn((1000, 260), torch.float32, "cuda", rng)
    plan = matmul_op.describe_plan(a, b)
    assert plan["path"] != "registers"
    assert_matches_reference(tilelab.matmul(a, b), a, b, precision="tf32", label="not registers")


@pytest.mark.parametrize("out_dtype", [torch.float32, torch.bfloat16, torch.float16])
def test_output_dtypes(out_dtype, rng):
    a = randn((700, 300), torch.float32, "cuda", rng)
    b = randn((300, 500), torch.float32, "cuda", rng)
    out = tilelab.matmul(a, b, out_dtype=out_dtype, path="registers")
    assert_matches_reference(out, a, b, precision="tf32", out_dtype=out_dtype, label=str(out_dtype))


def test_strided_rows_and_offsets(rng):
    """Views into wider buffers (16-byte aligned row strides and offsets) are read as they are, not copied."""
    a = randn((900, 400), torch.float32, "cuda", rng)[:, 4:324]
    b = randn((320, 700), torch.float32, "cuda", rng)[:, 8:608]
    assert matmul_op.describe_plan(a, b, path="registers")["b_row_major"] is True
    assert_matches_reference(tilelab.matmul(a, b, path="registers"), a, b, precision="tf32", label="strided")


def test_misaligned_b_falls_back_to_the_copy(rng):
    a = randn((1024, 512), torch.float32, "cuda", rng)
    b = randn((512, 1001), torch.float32, "cuda", rng)  # 4004-byte rows: no TMA
    plan = matmul_op.describe_plan(a, b)
    assert plan["path"] != "registers"
    assert_matches_reference(tilelab.matmul(a, b), a, b, precision="tf32", label="fallback")
    with pytest.raises(contracts.ContractError, match="b must be row-major"):
        tilelab.matmul(a, b, path="registers")


def test_batches(rng):
    """A B shared by the batch folds into one GEMM (registers); a B per batch entry takes the copy."""
    a = randn((3, 1024, 256), torch.float32, "cuda", rng)
    shared = randn((256, 2048), torch.float32, "cuda", rng)  # 3072 x 2048: 192 tiles
    assert matmul_op.describe_plan(a, shared)["path"] == "registers"
    assert_matches_reference(tilelab.matmul(a, shared), a, shared, precision="tf32", label="shared B")
    own = randn((3, 256, 2048), torch.float32, "cuda", rng)
    assert matmul_op.describe_plan(a, own)["path"] != "registers"
    assert_matches_reference(tilelab.matmul(a, own), a, own, precision="tf32", label="a B per batch entry")
    with pytest.raises(contracts.ContractError, match="one GEMM"):
        tilelab.matmul(a, own, path="registers")


def test_tf32x3_and_ieee_keep_their_paths(rng):
    a = randn((1024, 512), torch.float32, "cuda", rng)
    b = randn((512, 768), torch.float32, "cuda", rng)
    for precision in ("tf32x3", "ieee"):
        assert matmul_op.describe_plan(a, b, precision=precision)["path"] != "registers"
        assert_matches_reference(tilelab.matmul(a, b, precision=precision), a, b, precision=precision,
                                 label=precision)


def test_replayed_launch_computes_new_inputs(rng, monkeypatch):
    monkeypatch.setattr(matmul_op, "_REPLAYS", {})  # the real cache, emptied (the fixture disables it)
    a1, a2 = (randn((1100, 640), torch.float32, "cuda", rng) for _ in range(2))
    b1, b2 = (randn((640, 520), torch.float32, "cuda", rng) for _ in range(2))
    first = tilelab.matmul(a1, b1, path="registers")
    (replay,) = matmul_op._REPLAYS.values()
    assert replay.host_descriptors and replay.b_copy is None
    torch.full((1 << 22,), float("nan"), device="cuda")  # freed NaNs: the allocator hands them out next
    second = tilelab.matmul(a2, b2, path="registers")
    assert second.data_ptr() != first.data_ptr()
    assert_matches_reference(first, a1, b1, precision="tf32", label="first call")
    assert_matches_reference(second, a2, b2, precision="tf32", label="replayed call")


def test_cuda_graph_capture(rng):
    a = randn((1024, 512), torch.float32, "cuda", rng)
    b = randn((512, 640), torch.float32, "cuda", rng)
    assert_graph_replays(lambda a, b: tilelab.matmul(a, b, path="registers"), (a, b), rng, precision="tf32")


def test_gradients_with_the_path_forced(rng):
    """The backward multiplies by transposes, which the registers kernel does not take: it plans them itself."""
    a = randn((640, 384), torch.float32, "cuda", rng).requires_grad_()
    b = randn((384, 512), torch.float32, "cuda", rng).requires_grad_()
    assert_gradients_match(lambda a, b: tilelab.matmul(a, b, path="registers"), a, b, rng, max_error=2e-3)
