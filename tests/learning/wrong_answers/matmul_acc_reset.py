"""The accumulator is created inside the K loop, so only the last K tile survives."""

from learning.solutions.matmul import matmul_loops, tile_ranges  # noqa: F401


def matmul_tiled(a, b, c, block_m, block_n, block_k):
    for r0, r1 in tile_ranges(len(a), block_m):
        for c0, c1 in tile_ranges(len(b[0]), block_n):
            for k0, k1 in tile_ranges(len(b), block_k):
                acc = [[0.0] * (c1 - c0) for _ in range(r1 - r0)]  # wrong place
                for i in range(r1 - r0):
                    for j in range(c1 - c0):
                        for k in range(k0, k1):
                            acc[i][j] += a[r0 + i][k] * b[k][c0 + j]
            for i in range(r1 - r0):
                for j in range(c1 - c0):
                    c[r0 + i][c0 + j] = acc[i][j]
