"""Lesson 6 reference: matrix multiplication with loops, then with tiles."""


def matmul_loops(a, b):
    rows, inner, cols = len(a), len(b), len(b[0])
    if len(a[0]) != inner:
        raise ValueError(f"A is {rows}x{len(a[0])} but B is {inner}x{cols}: A's columns must equal B's rows")
    c = [[0.0] * cols for _ in range(rows)]  # a fresh list per row, never [[0.0] * cols] * rows
    for row in range(rows):
        for col in range(cols):
            total = 0.0
            for k in range(inner):
                total += a[row][k] * b[k][col]
            c[row][col] = total
    return c


def tile_ranges(size, tile):
    # Half-open (start, stop) pairs; the last one is clipped to size.
    return [(start, min(start + tile, size)) for start in range(0, size, tile)]


def matmul_tiled(a, b, c, block_m, block_n, block_k):
    rows, inner, cols = len(a), len(b), len(b[0])
    for row_start, row_stop in tile_ranges(rows, block_m):  # each (row tile, column tile) is one program
        for col_start, col_stop in tile_ranges(cols, block_n):
            acc = [[0.0] * (col_stop - col_start) for _ in range(row_stop - row_start)]  # before the K loop
            for k_start, k_stop in tile_ranges(inner, block_k):
                for i in range(row_stop - row_start):
                    for j in range(col_stop - col_start):
                        for k in range(k_start, k_stop):
                            acc[i][j] += a[row_start + i][k] * b[k][col_start + j]
            for i in range(row_stop - row_start):  # one store per tile, after every K step
                for j in range(col_stop - col_start):
                    c[row_start + i][col_start + j] = acc[i][j]
