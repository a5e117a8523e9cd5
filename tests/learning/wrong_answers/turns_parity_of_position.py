"""The parity taken from the ring position instead of its round: stage 5 of round 0 would wait for phase 1."""

from learning.solutions.turns import (  # noqa: F401
    pingpong_pays_off,
    ring_position,
    wait_is_right,
    wait_returns,
    waves_in_tiles,
)


def stage_and_parity(position, stages):
    return position % stages, position % 2
