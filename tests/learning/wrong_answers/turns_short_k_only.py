"""Only a short K sends a problem to the pingpong kernel: the last-wave rule forgotten."""

from learning.solutions.turns import (  # noqa: F401
    ring_position,
    stage_and_parity,
    wait_is_right,
    wait_returns,
    waves_in_tiles,
)


def pingpong_pays_off(m, n, k, sms, max_k=2048):
    return k <= max_k
