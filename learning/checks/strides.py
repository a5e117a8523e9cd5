"""Checks for exercise 2 (lesson 2): strides, storage offsets and views without copies."""

from __future__ import annotations

from learning.checking import reference as ref
from learning.checking.compare import check_matrix, check_value
from learning.checking.trial import CheckFailure, Part


def _column_major(shape):
    return tuple(reversed(ref.contiguous_strides(tuple(reversed(shape)))))


def check_contiguous_strides(module, trial) -> None:
    shapes = [(2, 3), (4,), (2, 3, 4), (1, 5), (5, 1), (3, 1, 2)]
    shapes += [tuple(trial.rng.randint(1, 6) for _ in range(trial.rng.randint(1, 4))) for _ in range(3)]
    for shape in shapes:
        with trial.case(f"contiguous_strides({shape})"):
            got = module.contiguous_strides(shape)
            got = tuple(got) if isinstance(got, (list, tuple)) else got
            next_size_only = tuple(list(shape[1:]) + [1])
            check_value(got, ref.contiguous_strides(shape), f"contiguous_strides({shape})", known_mistakes=[
                (_column_major(shape), "that is column-major order (strides swapped): in row-major "
                                       "storage the LAST dimension moves by 1"),
                (next_size_only, "a stride is the product of all later sizes, not only the next one"),
            ])


def check_element_offset(module, trial) -> None:
    cases = [((1, 2), (3, 1), 0), ((2, 1), (1, 3), 0), ((0, 0), (3, 1), 5), ((1, 2, 3), (12, 4, 1), 0)]
    for _ in range(3):
        shape = (trial.rng.randint(1, 5), trial.rng.randint(1, 5))
        index = tuple(trial.rng.randrange(s) for s in shape)
        cases.append((index, ref.contiguous_strides(shape), trial.rng.randint(0, 9)))
    for index, strides, offset in cases:
        with trial.case(f"element_offset({index}, {strides}, offset={offset})"):
            got = module.element_offset(index, strides, offset)
            want = offset + sum(i * s for i, s in zip(index, strides, strict=True))
            check_value(got, want, f"element_offset({index}, {strides}, {offset})", known_mistakes=[
                (want - offset, "the view's starting offset is missing"),
                (offset + sum(i * s for i, s in zip(index, reversed(strides), strict=True)),
                 "index i pairs with strides[i]; the strides look reversed"),
            ])


def check_transpose(module, trial) -> None:
    for shape in [(2, 3), (4, 1), (2, 3, 4), (trial.rng.randint(1, 9), trial.rng.randint(1, 9))]:
        strides = ref.contiguous_strides(shape)
        with trial.case(f"transpose({shape}, {strides})"):
            got = module.transpose(shape, strides)
            try:
                got_shape, got_strides = (tuple(x) for x in got)
            except (TypeError, ValueError):
                raise CheckFailure(f"transpose should return (shape, strides), got {got!r}") from None
            want_shape = shape[:-2] + (shape[-1], shape[-2]) if len(shape) >= 2 else shape
            want_strides = strides[:-2] + (strides[-1], strides[-2]) if len(strides) >= 2 else strides
            check_value(got_shape, want_shape, "the transposed shape")
            check_value(got_strides, want_strides, "the transposed strides", known_mistakes=[
                (strides, "the strides must be swapped too: a transpose moves no data, "
                          "it only changes which index walks which way through storage"),
                (ref.contiguous_strides(want_shape), "these are fresh contiguous strides, which "
                                                     "describe a copy: swap the original strides instead"),
            ])


def _view(storage, shape, strides, offset):
    rows, cols = shape
    return [[storage[offset + r * strides[0] + c * strides[1]] for c in range(cols)] for r in range(rows)]


def check_materialize(module, trial) -> None:
    storage = [float(v) for v in range(24)]
    cases = [
        ("contiguous 2x3", (2, 3), (3, 1), 0),
        ("transposed 3x2 view of a 2x3", (3, 2), (1, 3), 0),
        ("rows 1..2 of a 3x4 (offset 4)", (2, 4), (4, 1), 4),
        ("every other column of a 2x6", (2, 3), (6, 2), 0),
        ("column 2 of a 4x5", (4, 1), (5, 1), 2),
    ]
    rows, cols = trial.rng.randint(1, 4), trial.rng.randint(1, 5)
    cases.append((f"random transposed {cols}x{rows}", (cols, rows), (1, cols), 0))
    for name, shape, strides, offset in cases:
        with trial.case(f"materialize: {name}, strides {strides}, offset {offset}"):
            got = module.materialize(storage, shape, strides, offset)
            want = _view(storage, shape, strides, offset)
            mistakes = [(_view(storage, shape, ref.contiguous_strides(shape), offset),
                         "the view's own strides were ignored (contiguous strides used instead)"),
                        (_view(storage, shape, strides, 0), "the starting offset was ignored")]
            if shape[0] == shape[1]:
                mistakes.append((_view(storage, shape, tuple(reversed(strides)), offset),
                                 "the strides look swapped: row index times strides[0]"))
            check_matrix(got, want, "view", known_mistakes=mistakes)


PARTS = [
    Part("contiguous_strides", check_contiguous_strides),
    Part("element_offset", check_element_offset),
    Part("transpose", check_transpose),
    Part("materialize", check_materialize),
]
