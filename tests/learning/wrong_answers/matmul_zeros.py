"""Allocates C and returns it without computing anything."""

from learning.solutions.matmul import matmul_tiled, tile_ranges  # noqa: F401


def matmul_loops(a, b):
    return [[0.0] * len(b[0]) for _ in range(len(a))]
