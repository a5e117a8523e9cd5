"""Exercise 6 (lesson 6): matrix multiplication, from three loops to tiles.

A is M x K, B is K x N, C = A @ B is M x N. Matrices are lists of row lists.

Implement the three functions, then run:  python -m learning.check matmul
Standard library only.
"""


def matmul_loops(a, b):
    """C = A @ B with three loops. Return a NEW list of M separate row lists.

    Raise ValueError if A's column count differs from B's row count.
    """
    raise NotImplementedError("matmul_loops: rows, columns, then the inner (K) loop")


def tile_ranges(size, tile):
    """Split range(size) into half-open (start, stop) tiles of length `tile`, clipping the last.

    tile_ranges(7, 3) == [(0, 3), (3, 6), (6, 7)]
    """
    raise NotImplementedError("tile_ranges: half-open intervals, the last one clipped")


def matmul_tiled(a, b, c, block_m, block_n, block_k):
    """Fill the pre-allocated C (M row lists of N entries) with A @ B, one output tile at a time.

    For every block_m x block_n tile of C (use tile_ranges), keep an accumulator tile,
    walk K in steps of block_k adding each step's products into it, then write the
    tile into C. C arrives filled with NaN, like fresh GPU memory. Return nothing.
    """
    raise NotImplementedError("matmul_tiled: row tiles x column tiles, then K steps into an accumulator")
