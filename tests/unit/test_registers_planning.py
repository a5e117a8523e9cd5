"""When `tilelab.matmul` takes the registers path (tf32, B row-major, Hopper), and every way it refuses.

The kernel runs only on a Hopper GPU; these tests pretend to be on one (monkeypatched capability and
interpreter checks) to exercise the decisions on CPU tensors, and check the real refusals too.
"""

import pytest
import torch

import tilelab
from tilelab import contracts
from tilelab.ops import gluon_launch, matmul_hopper, matmul_plan
from tilelab.ops import matmul as matmul_op
from tilelab.ops import matmul_registers as registers


@pytest.fixture
def on_hopper(monkeypatch):
    """Decisions as on an H200: not interpreting, capability 9.0, no split-K (whose check needs a CUDA device)."""
    monkeypatch.setattr(gluon_launch.env, "interpreting", lambda: False)
    monkeypatch.setattr(gluon_launch, "is_hopper", lambda device: True)
    monkeypatch.setattr(matmul_plan, "_split_k_pays_off", lambda *args: False)
    monkeypatch.setattr(matmul_hopper, "device_sms", lambda device: 132)


def operands(m, n, k, dtype=torch.float32):
    return torch.randn(1, m, k).to(dtype), torch.randn(1, k, n).to(dtype)


def test_supported_problem_has_no_reason(on_hopper):
    assert registers.unsupported_reason(*operands(512, 256, 64), "tf32") is None


@pytest.mark.parametrize("make,precision,expected", [
    (lambda: operands(512, 256, 64, torch.float16), "tf32", "float32 kernel"),
    (lambda: operands(512, 256, 64, torch.bfloat16), "tf32", "float32 kernel"),
    (lambda: operands(512, 256, 64), "tf32x3", "tf32 only"),
    (lambda: operands(512, 256, 64), "ieee", "tf32 only"),
    (lambda: (torch.randn(2, 512, 64), torch.randn(2, 64, 256)), "tf32", "one GEMM"),
    (lambda: (torch.randn(1, 64, 512).transpose(1, 2), torch.randn(1, 64, 256)), "tf32", "a must be row-major"),
    (lambda: (torch.randn(1, 512, 64), torch.randn(1, 256, 64).transpose(1, 2)), "tf32", "b must be row-major"),
    (lambda: (torch.randn(1, 512, 63), torch.randn(1, 63, 256)), "tf32", "a must be row-major"),  # 252-byte rows
    (lambda: (torch.randn(1, 512, 64), torch.randn(1, 64, 255)), "tf32", "b must be row-major"),  # 1020-byte rows
    (lambda: (torch.randn(1, 512, 65)[:, :, 1:], torch.randn(1, 64, 256)), "tf32", "a must be"),  # 4-byte offset
])
def test_every_refusal_names_its_reason(on_hopper, make, precision, expected):
    assert expected in registers.unsupported_reason(*make(), precision)


def test_refuses_off_hopper_and_under_the_interpreter(monkeypatch):
    a3, b3 = operands(512, 256, 64)
    monkeypatch.setattr(gluon_launch.env, "interpreting", lambda: True)
    assert "interpreter" in registers.unsupported_reason(a3, b3, "tf32")
    monkeypatch.setattr(gluon_launch.env, "interpreting", lambda: False)
    assert "Hopper" in registers.unsupported_reason(a3, b3, "tf32")  # a CPU tensor is on no Hopper GPU
    assert not gluon_launch.is_hopper(torch.device("cpu"))


@pytest.mark.parametrize("m,n,k,expected", [
    (512, 4096, 4096, True),  # 128 tiles of 256x64 on 132 SMs: 1.06x torch against the 256x128 tile's 0.68x
    (1000, 1000, 1000, True),  # 128 tiles of 128x64: 1.12x against the copy's 0.90x
    (1024, 1024, 1024, True),
    (512, 512, 512, True),  # 64 tiles of 64x64 (0.48 of the SMs): 1.10x against the pointer kernel's 0.85x
    (256, 16384, 64, True),  # few rows, many columns: 128 tiles
    (2048, 2048, 2048, True), (8192, 8192, 8192, True),
    (300, 260, 1000, False), (127, 255, 65, False),  # 25 and 8 tiles of 64x64
    (4096, 1, 4096, False), (4096, 4096, 1, False),  # not a matrix product
])
def test_pays_off_when_tiles_fill_the_sms(m, n, k, expected):
    assert registers.pays_off(m, n, k, sms=132) is expected


@pytest.mark.parametrize("m,n,tag", [
    # The measured choices (results/h200-tf32-tiles-probe.log): the largest tiles that make 99 or more.
    (4096, 4096, "256x128x32-w8-s4"), (2048, 2048, "256x128x32-w8-s4"), (1024, 4096, "256x128x32-w8-s4"),
    (768, 4096, "256x128x32-w8-s4"),  # 96 tiles: 0.73 of the SMs is enough
    (512, 4096, "256x64x32-w4-s5"), (1000, 1000, "128x64x32-w4-s6"), (1024, 1024, "128x64x32-w4-s6"),
    (512, 512, "64x64x32-w4-s12"),  # nothing fills 99: the most tiles
    (127, 255, "64x64x32-w4-s12"),
    (64, 16384, "64x64x32-w4-s12"),  # 128-row tiles would be half padding
    (16384, 64, "128x64x32-w4-s6"),
    (100, 100000, "128x128x32-w8-s6"),  # C's 100 rows round up to 128: no 256-row tiles
    (128, 11008, "128x128x32-w8-s6"),  # 86 tiles: 0.96x torch where 172 of 128x64 ran at 0.73x
])
def test_choose_config_takes_the_largest_tiles_that_fill_the_sms(m, n, tag):
    assert registers.choose_config(m, n, sms=132).tag() == tag


def test_choose_config_follows_the_sm_count():
    """Half the SMs: 1000^3's 64 tiles of 256x64 now fill them."""
    assert registers.choose_config(1000, 1000, sms=66).tag() == "256x64x32-w4-s5"
    assert registers.choose_config(8192, 8192, sms=20000).tag() == "64x64x32-w4-s12"


def test_configurations_fit_the_kernel():
    """What `mma_partition` and `store_transposed` assume: 64 rows of C^T per warp group, a wgmma N of at most
    256, a C tile that splits in quarters of whole 8-row groups, and shared memory for every stage."""
    for config in registers.CONFIGS:
        assert config.block_n == 64 * (config.num_warps // 4), config
        assert config.block_m <= 256 and config.block_m % 32 == 0, config
        stages = config.num_stages * (config.block_m + config.block_n) * config.block_k * 4
        staging = config.block_m // 4 * config.block_n * 4
        assert stages + staging <= 227 * 1024, config
    tiles = [c.block_m * c.block_n for c in registers.CONFIGS]
    assert tiles == sorted(tiles, reverse=True)  # largest first: choose_config's order
    last = registers.CONFIGS[-1]
    assert (last.block_m, last.block_n) == (64, 64)  # fits every problem: choose_config always has a tile
    assert len({c.tag() for c in registers.CONFIGS}) == len(registers.CONFIGS)


def test_config_tagged():
    assert registers.config_tagged("128x64x32-w4-s6") == registers.CONFIGS[3]
    with pytest.raises(ValueError, match="there are .*256x128x32-w8-s4"):
        registers.config_tagged("128x64x32")


def test_plan_takes_registers_by_default_and_skips_the_copy_of_b(on_hopper):
    a3, b3 = operands(512, 4096, 64)
    plan = matmul_plan.plan_matmul(a3, b3, None, "tf32", None)
    assert plan.path == "registers"
    p = matmul_op._as_gemm(a3[0], b3[0])
    assert matmul_op._with_k_major_b(p, None) is p  # B stays as stored: no copy
    assert matmul_plan.plan_matmul(a3, b3, None, "tf32x3", None).path != "registers"
    few_tiles = operands(300, 260, 64)
    assert matmul_plan.plan_matmul(*few_tiles, None, "tf32", None).path != "registers"
    assert matmul_plan.plan_matmul(*few_tiles, "registers", "tf32", None).path == "registers"  # unless asked


@pytest.mark.parametrize("m,n,expected", [
    (16, 4096, "splitk"), (32, 4096, "splitk"),  # split-K 1.13-1.14x torch, registers 0.86-0.92x (H200)
    (48, 4096, "registers"), (64, 4096, "registers"), (128, 4096, "registers"), (256, 4096, "registers"),
    (4096, 32, "splitk"), (4096, 64, "splitk"),  # B is the smaller operand: split-K 0.99-1.00x, registers 0.95-0.99x
    (2048, 128, "splitk"),  # K = 8192 there: split-K 1.04x, registers 0.64x
    (4096, 4096, "registers"),
])
def test_registers_before_split_k_where_it_measured_faster(on_hopper, monkeypatch, m, n, expected):
    """Where split-K would take a tf32 problem, the registers kernel takes it from SPLIT_K_BELOW_M rows when B is
    the larger operand: split-K's tf32 kernel transposes every tile of the row-major B (0.55x torch at
    128x4096x4096, calls AAAA and EEEE)."""
    monkeypatch.setattr(matmul_plan, "_split_k_pays_off", lambda *args: True)
    a3, b3 = operands(m, n, 64)
    assert matmul_plan.plan_matmul(a3, b3, None, "tf32", None).path == expected
    assert registers.beats_split_k(m, n) is (expected == "registers")
    assert matmul_plan.plan_matmul(a3.half(), b3.half(), None, "tf32", None).path == "splitk"  # fp16 keeps it


def test_forced_registers_path_refuses_a_config(on_hopper):
    a3, b3 = operands(512, 256, 64)
    with pytest.raises(contracts.ContractError, match="chooses its own tiles"):
        matmul_plan.plan_matmul(a3, b3, "registers", "tf32", "fixed")


def test_forced_registers_path_refuses_what_it_cannot_take(on_hopper):
    a3, b3 = operands(512, 256, 64, torch.float16)
    with pytest.raises(contracts.ContractError, match="path='registers' cannot take these operands: it is a float32"):
        matmul_plan.plan_matmul(a3, b3, "registers", "tf32", None)


def test_public_call_explains_the_refusal_here():
    """On this machine (no GPU: the interpreter) the real check refuses, with the reason and what to do."""
    if torch.cuda.is_available():
        pytest.skip("the refusal is for machines without a GPU")
    a, b = torch.randn(512, 64), torch.randn(64, 256)
    with pytest.raises(contracts.ContractError, match="Leave path=None"):
        tilelab.matmul(a, b, path="registers")


def test_registers_is_a_known_path(device):
    assert "registers" in matmul_op.PATHS
    with pytest.raises(contracts.ContractError, match="path"):
        tilelab.matmul(torch.randn(4, 4, device=device), torch.randn(4, 4, device=device), path="register")


def test_grid_is_the_even_persistent_grid():
    config = registers.DEFAULT_CONFIG
    assert gluon_launch.persistent_programs(4096, 4096, config, 132) == 128  # 512 tiles, 4 per program
    assert gluon_launch.persistent_programs(256, 128, config, 132) == 1
    assert gluon_launch.persistent_programs(8192, 8192, config, 132) == 128


def test_launch_sets_the_warp_count_it_compiled_its_layouts_for(monkeypatch):
    """The kernel's layouts are written for `num_warps` warps: the launch must ask for that many (a constexpr
    passed only positionally leaves the launch option at 4 warps, and the layouts fail to verify)."""
    import tilelab.kernels.matmul_tf32_registers as kernels

    launches = []

    class Recorder:
        def __getitem__(self, grid):
            return lambda *args, **kwargs: launches.append((grid, args, kwargs)) or "compiled"

    monkeypatch.setattr(kernels, "matmul_tf32_registers_kernel", Recorder())
    a, b, c = torch.randn(1000, 64), torch.randn(64, 256), torch.empty(1000, 256)
    config = registers.DEFAULT_CONFIG
    compiled, grid, args = registers.launch(a, b, c, config, sms=132)
    ((launch_grid, launch_args, kwargs),) = launches
    assert compiled == "compiled" and launch_grid == grid == (4 * 2, 1, 1)
    assert kwargs == {"num_warps": config.num_warps}
    # For replays: every kernel parameter in signature order, the constexprs (GROUP_M, STAGES, ROUND_B,
    # num_warps) too.
    assert args[3:] == (1000, 256, 64, config.group_m, config.num_stages, config.round_b, config.num_warps)
    assert [d.block_shape for d in args[:3]] == [[256, 32], [32, 128], [64, 128]]


def test_refuses_without_gluon(monkeypatch):
    monkeypatch.setattr(gluon_launch.env, "interpreting", lambda: False)
    monkeypatch.setattr(gluon_launch.env, "has_gluon", lambda: False)
    assert "Gluon" in registers.unsupported_reason(*operands(512, 256, 64), "tf32")
