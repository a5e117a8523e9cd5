"""A wait trusted whenever it does what the round's completion says: blind to a round already overwritten."""

from learning.solutions.turns import (  # noqa: F401
    pingpong_pays_off,
    ring_position,
    stage_and_parity,
    wait_returns,
    waves_in_tiles,
)


def wait_is_right(completed, wanted):
    return wait_returns(completed, wanted % 2) == (completed > wanted)
