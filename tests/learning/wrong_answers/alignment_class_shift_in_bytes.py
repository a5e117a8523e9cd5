"""The shift in bytes: the K coordinate of a descriptor load counts elements."""

from learning.solutions.alignment import (  # noqa: F401
    aligned_row_stride,
    proven_vector_bytes,
    row_offsets,
    sectors_touched,
    worst_box_row_sectors,
)


def class_shift(row_bytes, classes, row_class, element_size):
    return row_class * row_bytes % (16 * classes)
