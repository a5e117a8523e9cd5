"""The smallest tile that fills the SMs instead of the largest: 64x64 tiles at 4096^3."""

from learning.solutions.filling import _padded, busy_fraction, tile_count, waves  # noqa: F401


def choose_tiles(m, n, sms, candidates, full_fill=0.6):
    fitting = [(bm, bn) for bm, bn in candidates if bm <= _padded(m) and bn <= _padded(n)]
    for block_m, block_n in reversed(fitting):
        if tile_count(m, n, block_m, block_n) >= full_fill * sms:
            return (block_m, block_n)
    return fitting[-1] if fitting else tuple(candidates[-1])
