"""The busy share taken as tiles per SM: above 1 beyond one wave, and blind to a half-empty last wave."""

from learning.solutions.filling import choose_tiles, tile_count, waves  # noqa: F401


def busy_fraction(tiles, sms):
    return tiles / sms
