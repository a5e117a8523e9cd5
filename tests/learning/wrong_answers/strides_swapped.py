"""Strides computed in column-major order: the first dimension moves by 1."""

from learning.solutions.strides import element_offset, materialize, transpose  # noqa: F401


def contiguous_strides(shape):
    strides, step = [], 1
    for size in shape:
        strides.append(step)
        step *= size
    return tuple(strides)
