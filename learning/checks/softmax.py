"""Checks for exercise 4 (lesson 4): softmax that survives large inputs."""

from __future__ import annotations

import math

from learning.checking import reference as ref
from learning.checking.compare import check_vector, fmt
from learning.checking.trial import CheckFailure, Part


def _naive_softmax(row):
    try:
        exps = [math.exp(x) for x in row]
        return [e / sum(exps) for e in exps]
    except (OverflowError, ZeroDivisionError):
        return None


def _call(function, row, label):
    try:
        return function(list(row))
    except OverflowError:
        raise CheckFailure(f"math.exp overflowed on {label}: exp(1000) does not fit in a float — "
                           "subtract the row's maximum before exponentiating") from None
    except ZeroDivisionError:
        raise CheckFailure(f"division by zero on {label}: every exp() underflowed to 0 — "
                           "subtract the row's maximum before exponentiating") from None


def check_softmax(module, trial) -> None:
    rows = [
        ("[1, 2, 3]", [1.0, 2.0, 3.0]),
        ("one value", [5.0]),
        ("large values [1000, 1001, 1002]", [1000.0, 1001.0, 1002.0]),
        ("very negative values", [-1000.0, -1001.0, -999.0]),
        ("a masked lane (-inf)", [0.5, -math.inf, 1.5, 2.0]),
        ("ragged length 127", trial.floats(127, -20.0, 20.0)),
        ("ragged length 65, shifted by 800", [v + 800.0 for v in trial.floats(65)]),
    ]
    for label, row in rows:
        with trial.case(f"softmax of {label}"):
            got = _call(module.softmax, row, label)
            want = ref.softmax(row)
            naive = _naive_softmax(row)
            mistakes = []
            if naive is not None:
                mistakes.append((naive, "this matches exp(x) / sum(exp(x)) without the max shift: "
                                        "it works here but overflows for large inputs"))
            if len(row) > 1:
                top = max(row)
                unnormalised = [math.exp(x - top) for x in row]
                mistakes.append((unnormalised, "the exponentials are not divided by their sum"))
            check_vector(got, want, f"softmax({label})", known_mistakes=mistakes, rel=1e-9, abs_tol=1e-12)
            total = math.fsum(got)
            if not math.isclose(total, 1.0, rel_tol=1e-9):
                raise CheckFailure(f"the probabilities sum to {fmt(total)}, not 1")


def check_softmax_rows(module, trial) -> None:
    for rows, cols in [(1, 1), (3, 4), (trial.rng.randint(2, 6), trial.rng.randint(1, 255))]:
        matrix = [trial.floats(cols, -30.0, 30.0) for _ in range(rows)]
        matrix[0] = [v + 1000.0 for v in matrix[0]]  # one row that overflows without the shift
        with trial.case(f"softmax_rows of a {rows}x{cols} matrix (row 0 shifted by 1000)"):
            got = _call(module.softmax_rows, matrix, "row 0")
            if not isinstance(got, list) or len(got) != rows:
                raise CheckFailure(f"expected {rows} rows back")
            for r, (got_row, row) in enumerate(zip(got, matrix, strict=True)):
                check_vector(got_row, ref.softmax(row), f"row {r}", abs_tol=1e-12)


PARTS = [
    Part("softmax", check_softmax),
    Part("softmax_rows", check_softmax_rows),
]
