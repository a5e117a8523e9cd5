"""The busiest program's share rounded down: a part-full last wave costs nothing."""

from learning.solutions.turns import (  # noqa: F401
    pingpong_pays_off,
    ring_position,
    stage_and_parity,
    wait_is_right,
    wait_returns,
)


def waves_in_tiles(m, n, block_m, block_n, sms):
    tiles = -(-m // block_m) * -(-n // block_n)
    return tiles // sms * (block_m * block_n // (128 * 128))
