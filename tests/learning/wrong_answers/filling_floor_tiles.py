"""Tiles counted with floor division: the partial tiles along C's edges go missing."""

from learning.solutions.filling import busy_fraction, choose_tiles, waves  # noqa: F401


def tile_count(m, n, block_m, block_n):
    return (m // block_m) * (n // block_n)
