"""C built with [[0.0] * N] * M: every row is the same list."""

from learning.solutions.matmul import matmul_tiled, tile_ranges  # noqa: F401


def matmul_loops(a, b):
    rows, inner, cols = len(a), len(b), len(b[0])
    c = [[0.0] * cols] * rows
    for i in range(rows):
        for j in range(cols):
            c[i][j] = sum(a[i][k] * b[k][j] for k in range(inner))
    return c
