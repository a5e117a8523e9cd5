"""The last wave as a second launch (`tilelab.ops.matmul_last_wave`): where it cuts, and that C comes out whole.

The cut is arithmetic on tile counts (checked against the kernel's own GROUP_M order, rebuilt in Python);
the two launches run on Triton's interpreter with a poisoned output, on shapes whose edges are ragged.
"""

import pytest
import torch

import tilelab
from tests.helpers import assert_matches_reference, randn
from tilelab import tuning
from tilelab.ops import matmul as matmul_op
from tilelab.ops import matmul_last_wave
from tilelab.ops.matmul_last_wave import LastWave, split
from tilelab.tuning import Config

pytestmark = pytest.mark.usefixtures("poisoned_outputs")

LARGE = Config(128, 256, 64, 8, num_warps=8, num_stages=3)


def grouped_order(m: int, n: int, config: Config) -> list[tuple[int, int]]:
    """(pid_m, pid_n) of every tile in launch order, as `tilelab.kernels.matmul.grouped_tile` maps them."""
    grid_m, grid_n = -(-m // config.block_m), -(-n // config.block_n)
    width = config.group_m * grid_n
    order = []
    for tile in range(grid_m * grid_n):
        first_m = tile // width * config.group_m
        rows = min(grid_m - first_m, config.group_m)
        order.append((first_m + tile % width % rows, tile % width // rows))
    return order


@pytest.mark.parametrize("m,n,sms,expected", [
    (3000, 3000, 132, LastWave(264, 2048, 2304)),  # 288 tiles: 24 left over, 3 columns of the last band
    (5000, 5000, 132, LastWave(792, 4096, 4864)),  # 800 tiles: 8 left, the last column
    (4096, 4096, 132, None),  # 512 tiles: the fourth wave is 116 of 132 full
    (2600, 2600, 132, None),  # 231 tiles: 99 left, three quarters of a wave
    (2048, 2048, 132, None),  # 128 tiles: one wave
    (4096, 8448, 132, None),  # 1056 tiles: 8 whole waves
])
def test_split_takes_the_last_columns_of_the_last_band(m, n, sms, expected):
    assert split(m, n, LARGE, sms) == expected


@pytest.mark.parametrize("m,n,sms,config", [(3000, 3000, 132, LARGE), (5000, 5000, 132, LARGE),
                                            (1000, 3000, 40, LARGE), (320, 192, 4, tuning.INTERPRETER),
                                            (900, 2000, 20, tuning.INTERPRETER)])
def test_the_rest_is_exactly_the_tiles_after_the_whole_waves(m, n, sms, config):
    last_wave = split(m, n, config, sms)
    assert last_wave is not None
    order = grouped_order(m, n, config)
    rest = {(pid_m, pid_n) for pid_m, pid_n in order[last_wave.whole_tiles:]}
    corner = {(pid_m, pid_n) for pid_m, pid_n in order
              if pid_m * config.block_m >= last_wave.row0 and pid_n * config.block_n >= last_wave.col0}
    assert rest == corner
    assert last_wave.whole_tiles % sms == 0 or last_wave.whole_tiles % sms > (1 - 0.5) * sms


def test_split_refuses_a_rest_that_would_be_the_whole_band():
    # 9x2 tiles on 4 SMs leave 2; the last band is one tile row, so 2 tiles are both its columns.
    assert split(288, 128, tuning.INTERPRETER, 4) is None


def test_only_tiles_that_hold_an_sm_each_are_split():
    assert matmul_last_wave.one_program_per_sm(LARGE, 2, 2)
    assert not matmul_last_wave.one_program_per_sm(Config(64, 64, 64, 8, num_warps=4, num_stages=4), 2, 2)


@pytest.mark.parametrize("m,n,k", [(320, 192, 72), (300, 168, 40), (96, 184, 64)])  # TMA: rows of 16-byte multiples
@pytest.mark.parametrize("dtype", [torch.float16, torch.float32])
@pytest.mark.parametrize("rest_path", ["descriptor", "splitk"])
def test_two_launches_fill_c(m, n, k, dtype, rest_path, device, rng, monkeypatch):
    # The interpreter's tile (32x64) shares SMs in real life; pretend it holds one, so that its 4 SMs split.
    monkeypatch.setattr(matmul_last_wave, "one_program_per_sm", lambda *args: True)
    # The rest is planned as a problem of its own: on the GPU long-K rests go split-K (the main launch here is
    # forced onto the descriptor path, so only the rest's plan sees this).
    monkeypatch.setattr(matmul_op, "_split_k_pays_off", lambda *args: rest_path == "splitk")
    launched = []
    real_launch = matmul_last_wave.launch

    def spy(*args):
        main, rest, offsets = real_launch(*args)
        launched.append((args[-1], rest[0]))
        return main, rest, offsets

    monkeypatch.setattr(matmul_last_wave, "launch", spy)
    a = randn((m, k), dtype, device, rng)
    b = randn((k, n), dtype, device, rng)
    expected = split(m, n, tuning.INTERPRETER, 4)
    assert expected is not None
    plan = matmul_op.describe_plan(a, b, path="descriptor")
    assert plan["path"] == "descriptor"
    assert_matches_reference(tilelab.matmul(a, b, path="descriptor"), a, b, label=f"{m}x{n}x{k} split")
    assert launched == [(expected, rest_path)]


def test_a_callers_config_is_launched_whole(device, rng, monkeypatch):
    monkeypatch.setattr(matmul_last_wave, "one_program_per_sm", lambda *args: True)
    monkeypatch.setattr(matmul_last_wave, "launch", lambda *args: pytest.fail("split a caller's config"))
    a = randn((320, 72), torch.float32, device, rng)
    b = randn((72, 192), torch.float32, device, rng)
    out = tilelab.matmul(a, b, path="descriptor", config=tuning.INTERPRETER)
    assert_matches_reference(out, a, b, label="caller's config")
