"""Exercise 14 (workshop I5): enough tiles for the SMs.

A matmul kernel with one output tile per work item splits C [M, N] into block_m x block_n tiles. The GPU runs
one tile per SM at a time (the H200 has 132 SMs), so the tiles run in waves: the first 132, then the next 132,
and so on. Two things pull the tile size in opposite directions:

- a larger tile reads A and B fewer times per flop (exercise 8's tile_intensity), so it is cheaper;
- a larger tile makes fewer tiles. Too few, and most SMs sit idle for the whole kernel.

tilelab.ops.matmul_registers.choose_config settles it: the largest tile whose count reaches 0.6 of the SMs.
choose_tiles is that rule, on plain (block_m, block_n) pairs.

Implement the four functions, then run:  python -m learning.check filling
Standard library only. Workshop I5 (learning/workshops/I5_filling_the_sms.md) uses them.
"""


def tile_count(m, n, block_m, block_n):
    """How many block_m x block_n tiles cover C [m, n]. A tile that hangs over C's edge is still a tile: a
    program computes it whole, and what lies outside C is thrown away. All arguments >= 1.

    tile_count(1000, 1000, 128, 64) == 128; tile_count(512, 4096, 256, 128) == 64; tile_count(1, 1, 64, 64) == 1.
    """
    raise NotImplementedError("tile_count: how many tiles along M, how many along N, rounded up")


def waves(tiles, sms):
    """How many rounds `sms` SMs need to run `tiles` tiles, one tile per SM at a time. tiles >= 0, sms >= 1.

    waves(128, 132) == 1; waves(172, 132) == 2; waves(512, 132) == 4; waves(0, 132) == 0.
    """
    raise NotImplementedError("waves: the last round counts even if only one SM works in it")


def busy_fraction(tiles, sms):
    """The average share of the SMs that hold a tile, over all the waves: tiles / (waves * sms). tiles >= 1.

    busy_fraction(132, 132) == 1.0; busy_fraction(66, 132) == 0.5; busy_fraction(172, 132) == 172 / 264.
    """
    raise NotImplementedError("busy_fraction: every wave offers sms slots; how many of them hold a tile?")


def choose_tiles(m, n, sms, candidates, full_fill=0.6):
    """The tile (block_m, block_n) that tilelab.ops.matmul_registers.choose_config would take for C [m, n].

    candidates: a list of (block_m, block_n) pairs, largest first. The rule:

    1. A tile taller than C's rows rounded up to a power of two (but at least 64), or wider than C's columns
       rounded the same way, is mostly padding: leave it out. The rest are the fitting tiles.
    2. Take the first fitting tile whose tile_count reaches full_fill * sms.
    3. If none does, take the last fitting tile (the smallest: it makes the most tiles).
    4. If no tile fits at all, take the last candidate.

    Return a tuple (block_m, block_n). m, n, sms >= 1; candidates is not empty.

    With the registers kernel's tiles on the H200's 132 SMs:
        tiles = [(256, 128), (256, 64), (128, 128), (128, 64), (64, 64)]
        choose_tiles(4096, 4096, 132, tiles) == (256, 128)    # 512 tiles
        choose_tiles(512, 4096, 132, tiles) == (256, 64)      # 256x128 makes only 64 tiles
        choose_tiles(64, 16384, 132, tiles) == (64, 64)       # every other tile has more than 64 rows
    """
    raise NotImplementedError("choose_tiles: filter by the padding rule first, then walk the list in order")
