"""Sectors counted from the length alone: a piece that starts mid-sector is one short."""

from learning.solutions.alignment import (  # noqa: F401
    aligned_row_stride,
    class_shift,
    proven_vector_bytes,
    row_offsets,
    worst_box_row_sectors,
)


def sectors_touched(start, length, sector=32):
    return -(-length // sector)
