"""The old grid's time without its rounds: 136 programs on 132 SMs counted as if they all ran at once."""

from learning.solutions.batches import (  # noqa: F401
    bmm_kernel,
    busiest_share,
    launch_bmm,
    matrix_and_tile,
    programs_per_matrix_grid,
)


def per_matrix_grid_time(batch, tiles_per_matrix, sms):
    programs = min(-(-sms // batch), tiles_per_matrix)
    return -(-tiles_per_matrix // programs)
