"""Every candidate is considered, even one taller than C: 128 rows of C get 256-row tiles, mostly padding."""

from learning.solutions.filling import busy_fraction, tile_count, waves  # noqa: F401


def choose_tiles(m, n, sms, candidates, full_fill=0.6):
    for block_m, block_n in candidates:
        if tile_count(m, n, block_m, block_n) >= full_fill * sms:
            return (block_m, block_n)
    return tuple(candidates[-1])
