"""Exercise 2 (lesson 2): storage, shapes and strides.

A tensor is a flat storage list plus a shape, strides (how far to step in storage
for +1 along each dimension) and a starting offset. Views reuse the storage.

Implement the four functions, then run:  python -m learning.check strides
Standard library only.
"""


def contiguous_strides(shape):
    """The strides of a row-major (C order) tensor of this shape, as a tuple.

    contiguous_strides((2, 3)) == (3, 1); contiguous_strides((2, 3, 4)) == (12, 4, 1).
    """
    raise NotImplementedError("contiguous_strides: the last dimension moves by 1")


def element_offset(index, strides, offset=0):
    """The storage position of the element at `index` (a tuple, one entry per dimension)."""
    raise NotImplementedError("element_offset: offset + sum of index * stride")


def transpose(shape, strides):
    """Swap the last two dimensions WITHOUT copying: return the view's (shape, strides) as tuples."""
    raise NotImplementedError("transpose: what changes, and what stays?")


def materialize(storage, shape, strides, offset=0):
    """Read the 2-D view (shape, strides, offset) out of `storage` as a list of row lists."""
    raise NotImplementedError("materialize: read every (row, col) of the view from storage")
