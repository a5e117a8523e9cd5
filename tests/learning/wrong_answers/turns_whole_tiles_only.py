"""Tiles are counted with floor division, as if a tile hanging over C's edge were not one."""


def ring_position(tile, k, k_steps):
    return tile * k_steps + k


def stage_and_parity(position, stages):
    return position % stages, (position // stages) % 2


def wait_returns(completed, parity):
    return completed % 2 != parity  # the current phase is number `completed`: a wait for its parity blocks


def wait_is_right(completed, wanted):
    return wanted <= completed <= wanted + 1


def _ceil_div(x, d):
    return -(-x // d)


def waves_in_tiles(m, n, block_m, block_n, sms):
    tiles = (m // block_m) * (n // block_n)
    return _ceil_div(tiles, sms) * (block_m * block_n // (128 * 128))


def pingpong_pays_off(m, n, k, sms, max_k=2048):
    return k <= max_k or waves_in_tiles(m, n, 128, 128, sms) < waves_in_tiles(m, n, 128, 256, sms)
