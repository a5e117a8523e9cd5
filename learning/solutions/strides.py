"""Lesson 2 reference: a tensor is flat storage plus a shape, strides and an offset."""


def contiguous_strides(shape):
    strides = []
    step = 1
    for size in reversed(shape):  # the last dimension moves by 1, earlier ones by everything after them
        strides.append(step)
        step *= size
    return tuple(reversed(strides))


def element_offset(index, strides, offset=0):
    return offset + sum(i * stride for i, stride in zip(index, strides, strict=True))


def transpose(shape, strides):
    # No data moves: the view just walks the same storage with its last two strides exchanged.
    shape, strides = list(shape), list(strides)
    shape[-2], shape[-1] = shape[-1], shape[-2]
    strides[-2], strides[-1] = strides[-1], strides[-2]
    return tuple(shape), tuple(strides)


def materialize(storage, shape, strides, offset=0):
    rows, cols = shape
    return [[storage[element_offset((r, c), strides, offset)] for c in range(cols)] for r in range(rows)]
