"""When `tilelab.matmul` takes the ping-pong path (fp16/bf16, a short K, Hopper), and every way it refuses.

As in test_registers_planning: the kernel runs only on a Hopper GPU, so these tests pretend to be on one to
exercise the decisions on CPU tensors, and check the real refusals too.
"""

import pytest
import torch

import tilelab
from tilelab import contracts
from tilelab.ops import gluon_launch, matmul_hopper, matmul_plan
from tilelab.ops import matmul as matmul_op
from tilelab.ops import matmul_pingpong as pingpong


@pytest.fixture
def on_hopper(monkeypatch):
    """Decisions as on an H200: not interpreting, capability 9.0, TMA paths for large problems."""
    monkeypatch.setattr(gluon_launch.env, "interpreting", lambda: False)
    monkeypatch.setattr(gluon_launch, "is_hopper", lambda device: True)
    monkeypatch.setattr(matmul_plan, "_split_k_pays_off", lambda *args: False)
    monkeypatch.setattr(matmul_plan, "_descriptor_pays_off", lambda *args: True)
    monkeypatch.setattr(matmul_hopper, "device_sms", lambda device: 132)


def operands(m, n, k, dtype=torch.float16):
    return torch.randn(1, m, k, dtype=dtype), torch.randn(1, k, n, dtype=dtype)


def test_supported_problems_have_no_reason(on_hopper):
    a3, b3 = operands(256, 128, 64)
    assert pingpong.unsupported_reason(a3, b3) is None
    assert pingpong.unsupported_reason(a3.bfloat16(), b3.bfloat16()) is None
    assert pingpong.unsupported_reason(a3, b3.mT.contiguous().mT) is None  # B stored [N, K]
    batch = torch.randn(3, 256, 64).half(), torch.randn(3, 64, 128).half()
    assert pingpong.unsupported_reason(*batch) is None  # a batch, described in 3-D
    assert pingpong.unsupported_reason(batch[0][:1], batch[1]) is None  # one A for the whole batch


def _batch_stride_off_16_bytes():
    """[2, 256, 64] fp16 whose second matrix starts 2 bytes past a 16-byte boundary."""
    return torch.empty(2 * 256 * 64 + 1, dtype=torch.float16).as_strided((2, 256, 64), (256 * 64 + 1, 64, 1))


@pytest.mark.parametrize("make,expected", [
    (lambda: operands(256, 128, 64, torch.float32), "float16/bfloat16 kernel"),
    (lambda: (_batch_stride_off_16_bytes(), torch.randn(2, 64, 128).half()), "a must be row-major"),
    (lambda: (torch.randn(2, 128, 64).half(), _batch_stride_off_16_bytes().mT), "b must have a unit stride"),
    (lambda: (torch.randn(1, 64, 256).half().mT, torch.randn(1, 64, 128).half()), "a must be row-major"),
    (lambda: (torch.randn(1, 256, 63).half(), torch.randn(1, 63, 128).half()), "a must be row-major"),  # 126 B
    (lambda: (torch.randn(1, 256, 64).half(), torch.randn(1, 64, 127).half()), "b must have a unit stride"),
    (lambda: (torch.randn(1, 256, 64).half(), torch.randn(1, 64, 256).half()[:, :, ::2]), "b must have"),
])
def test_every_refusal_names_its_reason(on_hopper, make, expected):
    assert expected in pingpong.unsupported_reason(*make())


def test_refuses_off_hopper_under_the_interpreter_and_without_gluon(monkeypatch):
    a3, b3 = operands(256, 128, 64)
    monkeypatch.setattr(gluon_launch.env, "interpreting", lambda: True)
    assert "interpreter" in pingpong.unsupported_reason(a3, b3)
    monkeypatch.setattr(gluon_launch.env, "interpreting", lambda: False)
    assert "Hopper" in pingpong.unsupported_reason(a3, b3)  # a CPU tensor is on no Hopper GPU
    monkeypatch.setattr(gluon_launch.env, "has_gluon", lambda: False)
    assert "Gluon" in pingpong.unsupported_reason(a3, b3)


@pytest.mark.parametrize("k,expected", [(512, True), (1024, True), (2048, True), (2049, False), (4096, False)])
def test_pays_off_with_a_short_k(k, expected):
    assert pingpong.pays_off(4096, 4096, k, 132) is expected  # 4096^2: the same waves either way


@pytest.mark.parametrize("m,n,mine,persistent", [
    (4096, 11008, 21, 22),  # 1.05x torch against the persistent kernel's 1.03x (calls JJJJ, NNNN)
    (4096, 5504, 11, 12),  # 1.02x against 0.94x
    (5120, 5120, 13, 14),  # 0.96x against 0.89x
    (4096, 4096, 8, 8),  # 0.99x against 1.00x: the persistent kernel keeps it
    (8192, 8192, 32, 32),
    (6144, 6144, 18, 18),
])
def test_a_better_filled_last_wave_pays_off_at_any_k(m, n, mine, persistent):
    assert pingpong.waves_in_tiles(m, n, pingpong.DEFAULT_CONFIG, 132) == mine
    assert pingpong.waves_in_tiles(m, n, matmul_hopper.PERSISTENT_CANDIDATES[0], 132) == persistent
    assert pingpong.pays_off(m, n, 8192, 132) is (mine < persistent)


@pytest.mark.parametrize("m,n,k,expected", [
    (8192, 8192, 1024, "pingpong"),  # 1.07x torch against the persistent kernel's 0.99x (call JJJJ)
    (4096, 4096, 2048, "pingpong"),  # 1.02x against 0.98x (call KKKK)
    (8192, 8192, 4096, "persistent"),  # a long K: the persistent kernel's larger tiles read less per flop
    (4096, 11008, 4096, "pingpong"),  # ... unless its last wave is emptier
    (2048, 2048, 2048, "descriptor"),  # below the persistent kernel's work threshold: untouched
])
def test_plan_takes_pingpong_where_the_persistent_kernel_would_with_a_short_k(on_hopper, m, n, k, expected):
    a3, b3 = torch.empty(1, m, k, dtype=torch.float16), torch.empty(1, k, n, dtype=torch.float16)
    assert matmul_plan.plan_matmul(a3, b3, None, "tf32", None).path == expected


def test_plan_keeps_the_persistent_kernel_for_what_pingpong_cannot_take(on_hopper):
    a3 = torch.empty(1, 1024, 8192, dtype=torch.float16).mT  # A stored [K, M]
    b3 = torch.empty(1, 1024, 8192, dtype=torch.float16)
    assert matmul_plan.plan_matmul(a3, b3, None, "tf32", None).path == "persistent"


@pytest.mark.parametrize("batch,m,n,k,expected", [
    (8, 4096, 4096, 1024, "pingpong"),  # 1.06x torch against the persistent kernel's 0.94x (call WWWW)
    (4, 4096, 4096, 4096, "pingpong"),  # 0.97x against 0.93x
    (2, 2048, 2048, 8192, "persistent"),  # a long K: 1.00x against 0.97x (call XXXX)
    (256, 128, 128, 128, "pingpong"),  # 256 tiles, 2 per program: 0.94x against one program per tile's 0.90x
    (128, 128, 128, 128, "descriptor"),  # 128 tiles, one per SM: 1.02x against 0.93x
    (2, 1024, 1024, 1024, "descriptor"),  # 128 tiles: 1.01x against 0.95x (persistent 0.95x)
    (16, 1000, 1000, 1000, "persistent"),  # rows off sectors: 0.88x against 0.66x
    (8, 1024, 1000, 1024, "persistent"),  # B's rows off sectors: 0.92x against 0.83x
    (8, 1024, 1024, 1000, "persistent"),  # A's: 0.95x against 0.92x
    (64, 128, 128, 64, "descriptor"),  # below BATCH_PINGPONG_MIN_WORK
])
def test_plan_of_a_batch(on_hopper, batch, m, n, k, expected):
    a3, b3 = torch.empty(batch, m, k, dtype=torch.float16), torch.empty(batch, k, n, dtype=torch.float16)
    assert matmul_plan.plan_matmul(a3, b3, None, "tf32", None).path == expected
    b_nk = torch.empty(batch, n, k, dtype=torch.float16).mT  # B stored [N, K], as attention's K^T
    if n == 1000 and k % 64 == 0:
        expected = "pingpong"  # B's stored rows are K's: 2048 bytes, on sectors
    assert matmul_plan.plan_matmul(a3, b_nk, None, "tf32", None).path == expected


def test_forced_pingpong_path(on_hopper):
    a3, b3 = operands(256, 128, 64)
    assert matmul_plan.plan_matmul(a3, b3, "pingpong", "tf32", None).path == "pingpong"  # any K when asked
    with pytest.raises(contracts.ContractError, match="one configuration"):
        matmul_plan.plan_matmul(a3, b3, "pingpong", "tf32", "fixed")
    with pytest.raises(contracts.ContractError, match="path='pingpong' cannot take.*float16/bfloat16"):
        matmul_plan.plan_matmul(a3.float(), b3.float(), "pingpong", "tf32", None)


@pytest.mark.skipif(torch.cuda.is_available() and torch.cuda.get_device_capability()[0] == 9,
                    reason="a Hopper GPU takes the path (tests/gpu/test_pingpong_gpu.py)")
def test_public_call_explains_the_refusal_here(device):
    a = torch.randn(64, 32, dtype=torch.float16, device=device)
    b = torch.randn(32, 48, dtype=torch.float16, device=device)
    with pytest.raises(contracts.ContractError, match="path='pingpong' cannot take.*(interpreter|Hopper)"):
        tilelab.matmul(a, b, path="pingpong")


def test_descriptors_follow_b_storage():
    a, c = torch.empty(1000, 256, dtype=torch.float16), torch.empty(1000, 512, dtype=torch.float16)
    row_major = torch.empty(256, 512, dtype=torch.float16)
    blocks = [d.block_shape for d in pingpong.descriptors(a, row_major, c)]
    assert blocks == [[128, 64], [64, 128], [128, 64]]  # C's block: half a tile wide, the staging buffer
    k_major = torch.empty(512, 256, dtype=torch.float16).t()
    a_desc, b_desc, _ = pingpong.descriptors(a, k_major, c)
    assert b_desc.block_shape == [128, 64] and b_desc.shape == [512, 256]  # B described as stored, [N, K]


def test_grid_is_the_even_persistent_grid():
    config = pingpong.DEFAULT_CONFIG
    assert gluon_launch.persistent_programs(8192, 8192, config, 132) == 128  # 4096 tiles, 32 per program
    assert gluon_launch.persistent_programs(256, 128, config, 132) == 2


@pytest.fixture
def launches(monkeypatch) -> list:
    """The kernel's launches, recorded instead of run: (grid, arguments, keywords) each."""
    import tilelab.kernels.matmul_pingpong as kernels

    recorded = []

    class Recorder:
        def __getitem__(self, grid):
            return lambda *args, **kwargs: recorded.append((grid, args, kwargs)) or "compiled"

    monkeypatch.setattr(kernels, "matmul_pingpong_kernel", Recorder())
    return recorded


def test_launch_records_every_parameter_for_replays(launches):
    a, c = torch.empty(1000, 64, dtype=torch.float16), torch.empty(1000, 256, dtype=torch.float16)
    b = torch.empty(256, 64, dtype=torch.float16).t()
    config = pingpong.DEFAULT_CONFIG
    compiled, grid, args = pingpong.launch(a, b, c, sms=132)
    ((launch_grid, _, kwargs),) = launches
    assert compiled == "compiled" and launch_grid == grid == (8 * 2, 1, 1)
    assert kwargs == {"num_warps": 4}
    # Every kernel parameter after the descriptors, in signature order: M, N, K, MATRICES, GROUP_M, STAGES,
    # B_K_MAJOR, BATCHED, MMA_REGS, num_warps.
    assert args[3:] == (1000, 256, 64, 1, config.group_m, config.num_stages, True, False, config.mma_regs, 4)


def test_launch_with_an_epilogue_passes_it_after_num_warps(launches):
    """`tilelab.linear`'s bias and activation go in as keywords and are recorded after num_warps, the kernel's
    signature order, for `_LinearReplay` (which passes the bias's address anew and keeps the activation)."""
    a, c = torch.empty(1000, 64, dtype=torch.float16), torch.empty(1000, 256, dtype=torch.float16)
    b = torch.empty(256, 64, dtype=torch.float16).t()
    bias = torch.empty(256, dtype=torch.float16)
    _, _, args = pingpong.launch(a, b, c, sms=132, epilogue=(bias, "gelu"))
    ((_, launch_args, kwargs),) = launches
    assert kwargs == {"num_warps": 4, "bias_ptr": bias, "ACTIVATION": "gelu"}
    assert args[:-3] == launch_args and args[-3:] == (4, bias, "gelu")
    launches.clear()
    _, _, args = pingpong.launch(a, b, c, sms=132, epilogue=(None, "relu"))
    assert launches[0][2] == {"num_warps": 4, "bias_ptr": None, "ACTIVATION": "relu"} and args[-2:] == (None, "relu")


def test_pingpong_is_a_known_path():
    assert "pingpong" in matmul_op.PATHS


def test_descriptors_of_operands_with_a_single_row_or_column():
    """A dimension of extent 1 has no stride of its own (torch may report 1): the descriptors take the row stride
    `operand_layout` checked, padded to 16 bytes, and B's orientation from it, so TMA gets a stride it accepts."""
    a = torch.empty(64, 1, dtype=torch.float16).t()  # [1, 64], strides (1, 1)
    b = torch.empty(64, 1, dtype=torch.float16)  # [64, 1], strides (1, 1): read as [N, K] = [1, 64]
    c = torch.empty(1, 8, dtype=torch.float16)
    a_desc, b_desc, _ = pingpong.descriptors(a, b, c)
    assert a_desc.strides == [64, 1]
    assert b_desc.shape == [1, 64] and b_desc.block_shape == [128, 64] and b_desc.strides == [64, 1]
    assert all(stride * 2 % 16 == 0 for d in (a_desc, b_desc) for stride in d.strides[:1])
    with pytest.raises(ValueError, match="unit stride along its rows"):
        gluon_launch.describe(torch.empty(64, 32, dtype=torch.float16).t(), [64, 64])


def test_a_batch_is_described_once_in_three_dimensions():
    """One descriptor per operand for the whole batch: [batch, rows, cols] with [1, rows, cols] blocks, batch and
    row strides as stored (C's rows padded); an operand the batch shares stays the 2-D matrix it is."""
    a = torch.empty(3, 1000, 256, dtype=torch.float16)
    b_stored = torch.empty(3, 512, 256, dtype=torch.float16)  # [batch, N, K], passed transposed
    c = torch.empty(3, 1000, 576, dtype=torch.float16)[:, :, :512]
    a_desc, b_desc, c_desc = pingpong.descriptors(a, b_stored.mT, c)
    assert (a_desc.shape, a_desc.strides, a_desc.block_shape) == ([3, 1000, 256], [256000, 256, 1], [1, 128, 64])
    assert (b_desc.shape, b_desc.strides, b_desc.block_shape) == ([3, 512, 256], [131072, 256, 1], [1, 128, 64])
    assert (c_desc.shape, c_desc.strides, c_desc.block_shape) == ([3, 1000, 512], [576000, 576, 1], [1, 128, 64])
    assert a_desc.layout == gluon_launch.shared_layout([1, 128, 64], torch.float16)
    shared_a = a[:1].expand(3, -1, -1)  # batch stride 0
    assert pingpong.descriptors(shared_a, b_stored.mT, c)[0].shape == [1000, 256]


def test_a_batch_launches_one_list_of_tiles(launches):
    a, b = torch.empty(8, 512, 128, dtype=torch.float16), torch.empty(8, 128, 768, dtype=torch.float16)
    c = torch.empty(8, 512, 768, dtype=torch.float16)
    config = pingpong.DEFAULT_CONFIG
    _, grid, args = pingpong.launch(a, b, c, sms=132)
    ((launch_grid, launch_args, _),) = launches
    assert launch_grid == grid and launch_args == args[:-1]  # num_warps travels as a keyword
    # 8 matrices of 4 x 6 tiles: 192 tiles on every SM (96 programs of 2 would leave too many SMs idle)
    assert grid == (132, 1, 1) == (gluon_launch.persistent_programs(512, 768, config, 132, matrices=8), 1, 1)
    assert args[3:] == (512, 768, 128, 8, config.group_m, config.num_stages, False, True, config.mma_regs, 4)
    assert pingpong.waves_in_tiles(512, 768, config, 132, matrices=8) == 2


@pytest.mark.parametrize("m,n,k,expected", [
    (3072, 3072, 3072, "wide"),  # 576 pingpong tiles: 5 per SM; 384 wide ones: 3 of 1.5 (call RRRRRR: 0.94x/0.89x)
    (3072, 3072, 4096, "wide"),  # 0.95x against 0.90x
    (1536, 1536, 8192, "wide"),  # 144 tiles of 128x128, 2 per SM; 96 wide ones, one each
    (1536, 4096, 4096, "pingpong"),  # the same work per SM: 1.01x against 0.98x
    (4096, 3072, 4096, "persistent"),  # 0.99x against 0.94x
    (6144, 6144, 3072, "persistent"),  # 0.98x against 0.94x
    (4096, 4096, 4096, "persistent"),  # the default shapes keep their kernels
    (8192, 8192, 1024, "pingpong"),
    (4096, 11008, 4096, "pingpong"),
])
def test_wide_tiles_take_one_gemm_whose_waves_they_fill_better(on_hopper, m, n, k, expected):
    a3, b3 = torch.empty(1, m, k, dtype=torch.float16), torch.empty(1, k, n, dtype=torch.float16)
    plan = matmul_plan.plan_matmul(a3, b3, None, "tf32", None)
    if expected == "wide":
        assert (plan.path, plan.config, plan.row_classes) == ("descriptor", tilelab.tuning.WIDE_CANDIDATES[0], 1)
    else:
        assert (plan.path, plan.config) == (expected, None)


@pytest.mark.parametrize("make", [
    lambda: (torch.empty(2, 3072, 3072, dtype=torch.float16), torch.empty(2, 3072, 3072, dtype=torch.float16)),
    lambda: (torch.empty(1, 3072, 3072), torch.empty(1, 3072, 3072)),  # float32: the C tile does not fit
    lambda: (torch.empty(1, 3072, 3080, dtype=torch.float16)[:, :, :3072], torch.empty(1, 3072, 3072).half()),
])
def test_wide_tiles_leave_batches_float32_and_rows_off_sectors_alone(on_hopper, make):
    a3, b3 = make()
    assert matmul_plan.plan_matmul(a3, b3, None, "tf32", None).path != "descriptor"
