"""tile_ranges forgets to clip the last tile to the size."""

from learning.solutions.matmul import matmul_loops  # noqa: F401


def tile_ranges(size, tile):
    return [(start, start + tile) for start in range(0, size, tile)]


def matmul_tiled(a, b, c, block_m, block_n, block_k):
    for r0, r1 in tile_ranges(len(a), block_m):
        for c0, c1 in tile_ranges(len(b[0]), block_n):
            acc = [[0.0] * (c1 - c0) for _ in range(r1 - r0)]
            for k0, k1 in tile_ranges(len(b), block_k):
                for i in range(r1 - r0):
                    for j in range(c1 - c0):
                        for k in range(k0, min(k1, len(b))):
                            if r0 + i < len(a) and c0 + j < len(b[0]):
                                acc[i][j] += a[r0 + i][k] * b[k][c0 + j]
            for i in range(r1 - r0):
                for j in range(c1 - c0):
                    c[r0 + i][c0 + j] = acc[i][j]  # writes past the edge of C
