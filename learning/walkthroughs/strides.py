"""explain strides: one storage, several views (row-major, transposed, a column)."""

from __future__ import annotations

from learning.checking import reference as ref

from .script import Script

STORAGE = [0, 1, 2, 3, 4, 5]


def _offset(index, strides, offset=0):
    return offset + sum(i * s for i, s in zip(index, strides, strict=True))


def build() -> Script:
    s = Script("strides: how an index becomes a storage position")
    s.say(f"storage = {STORAGE}, viewed as a 2 x 3 matrix [[0, 1, 2], [3, 4, 5]].")
    strides = ref.contiguous_strides((2, 3))
    s.ask("row-major strides of shape (2, 3)", strides)
    s.ask("storage position of [1, 2] = 1*3 + 2*1", _offset((1, 2), strides))
    s.say("\nTranspose without copying: swap the shape AND the strides.")
    t_shape, t_strides = (3, 2), (strides[1], strides[0])
    s.ask("the transposed view's (shape, strides)", (t_shape, t_strides))
    s.ask("storage position of transposed [2, 1] = 2*1 + 1*3", _offset((2, 1), t_strides))
    s.say("Same cell as [1, 2] of the original: no data moved.")
    s.ask("is the transposed row [0, 3] next to each other in storage?", "no: they are 3 apart (stride 3)")
    s.say("\nA column is a view too: offset 1, shape (2,), stride (3,).")
    s.ask("elements of column 1", [STORAGE[_offset((r,), (3,), 1)] for r in range(2)])
    s.say("\nFor matmul: in a row-major B (K x N), stepping along K jumps N elements; the kernel gets")
    s.say("stride_bk = b.stride(0) and stride_bn = b.stride(1). Swapping them reads B transposed.")
    s.say("\nNext: python -m learning.check strides")
    return s
