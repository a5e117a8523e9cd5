"""cdiv with a while loop whose counter never advances: the checker must time out."""

from learning.solutions.offsets import add_vectors, program_offsets, tail_mask  # noqa: F401


def cdiv(n, block):
    count, covered = 0, 0
    while covered < n:
        count += 1  # forgot covered += block
    return count
