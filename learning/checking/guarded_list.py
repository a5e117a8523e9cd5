"""A Python list with guard zones: the CPU stand-in for a GPU buffer.

On a GPU, a store past the end of a buffer silently scribbles on a neighbour. A plain
Python list either raises IndexError or, for a negative index, silently wraps around.
GuardedList records every out-of-range load and store instead, so the checker can
report which offset (and so which program and lane) went astray.
"""

from __future__ import annotations

import math

NAN = math.nan


class GuardedList(list):
    def __init__(self, values, name: str):
        super().__init__(values)
        self.name = name
        self.stray_stores: list[int] = []
        self.stray_loads: list[int] = []

    @classmethod
    def poisoned(cls, length: int, name: str) -> GuardedList:
        """An output buffer that starts as NaN, like uninitialised GPU memory."""
        return cls([NAN] * length, name)

    def _in_range(self, index) -> bool:
        return isinstance(index, int) and 0 <= index < len(self)

    def __setitem__(self, index, value):
        if isinstance(index, slice) or self._in_range(index):
            return super().__setitem__(index, value)
        if isinstance(index, int):
            self.stray_stores.append(index)  # dropped, as a guard zone would absorb it
            return None
        return super().__setitem__(index, value)  # let a wrong index type raise TypeError

    def __getitem__(self, index):
        if isinstance(index, slice) or self._in_range(index):
            return super().__getitem__(index)
        if isinstance(index, int):
            self.stray_loads.append(index)
            return NAN  # reading outside the buffer gives garbage
        return super().__getitem__(index)

    def unwritten(self) -> list[int]:
        return [i for i, v in enumerate(self) if isinstance(v, float) and math.isnan(v)]


def describe_offset(offset: int, length: int, block: int | None = None) -> str:
    """'offset 9 (2 past the end; program 2, lane 1 with block 4)'."""
    if offset >= length:
        where = f"{offset - length + 1} past the end"
    else:
        where = f"{-offset} before the start"
    text = f"offset {offset} ({where}"
    if block:
        text += f"; program {offset // block}, lane {offset % block} with block {block}"
    return text + ")"


def spans(indices: list[int]) -> str:
    """[4, 5, 6, 9] -> '4..6, 9' for compact messages."""
    parts, start, prev = [], None, None
    for i in sorted(indices):
        if start is None:
            start = prev = i
        elif i == prev + 1:
            prev = i
        else:
            parts.append(f"{start}..{prev}" if prev != start else f"{start}")
            start = prev = i
    if start is not None:
        parts.append(f"{start}..{prev}" if prev != start else f"{start}")
    return ", ".join(parts)


class GuardedMatrix(list):
    """Rows of GuardedList. Indexing a row outside the matrix hands back a phantom row,
    so `c[M][j] = v` is recorded as a stray store instead of crashing."""

    def __init__(self, rows: int, cols: int, name: str):
        super().__init__(GuardedList.poisoned(cols, f"{name} row {r}") for r in range(rows))
        self.cols = cols
        self.name = name
        self._phantoms: dict[int, GuardedList] = {}

    def __getitem__(self, index):
        if isinstance(index, int) and not 0 <= index < len(self):
            return self._phantoms.setdefault(index, GuardedList.poisoned(self.cols, f"{self.name} row {index}"))
        return super().__getitem__(index)

    def stray_stores(self) -> list[tuple[int, int]]:
        found = []
        for r in range(len(self)):
            found += [(r, c) for c in list.__getitem__(self, r).stray_stores]
        for r, row in sorted(self._phantoms.items()):
            found += [(r, c) for c in range(self.cols) if not math.isnan(list.__getitem__(row, c))]
            found += [(r, c) for c in row.stray_stores]
        return found

    def as_lists(self) -> list[list[float]]:
        return [list(list.__getitem__(self, r)) for r in range(len(self))]
