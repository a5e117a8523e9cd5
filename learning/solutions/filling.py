"""Reference solution for exercise 14 (workshop I5): tile counts, waves and the largest tile that fills."""


def tile_count(m, n, block_m, block_n):
    return -(-m // block_m) * -(-n // block_n)  # each side rounded up: an edge tile is still a tile


def waves(tiles, sms):
    return -(-tiles // sms)


def busy_fraction(tiles, sms):
    return tiles / (waves(tiles, sms) * sms)


def _padded(size):
    """The smallest power of two >= size, at least 64."""
    power = 64
    while power < size:
        power *= 2
    return power


def choose_tiles(m, n, sms, candidates, full_fill=0.6):
    rows, cols = _padded(m), _padded(n)
    fitting = [(bm, bn) for bm, bn in candidates if bm <= rows and bn <= cols]
    for bm, bn in fitting:
        if tile_count(m, n, bm, bn) >= full_fill * sms:
            return (bm, bn)
    if fitting:
        return fitting[-1]
    bm, bn = candidates[-1]
    return (bm, bn)
