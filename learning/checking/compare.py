"""Compare a learner's answer with the expected one and describe the first difference.

Messages name the element ("C[0,0] is 33, expected 58") and, when the wrong answer
matches a known mistake, the likely cause ("is the accumulator reset inside the K loop?").
"""

from __future__ import annotations

import math

from .trial import CheckFailure


def fmt(value) -> str:
    """Print 33.0 as 33 and 0.1 + 0.2 as 0.3, so messages read like arithmetic."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return str(value)
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return f"{value:.6g}"
    return str(value)


def close(got, expected, rel: float = 1e-9, abs_tol: float = 1e-9) -> bool:
    """Numbers within tolerance (NaN matches NaN); anything else must be equal."""
    if not isinstance(expected, (int, float)) or isinstance(expected, bool):
        return got == expected
    if not isinstance(got, (int, float)) or isinstance(got, bool):
        return False
    if math.isnan(expected):
        return math.isnan(got)
    if math.isinf(expected):
        return got == expected
    return math.isclose(got, expected, rel_tol=rel, abs_tol=abs_tol)


def _all_close_matrix(got, expected, rel, abs_tol) -> bool:
    try:
        return all(
            len(g) == len(e) and all(close(x, y, rel, abs_tol) for x, y in zip(g, e, strict=True))
            for g, e in zip(got, expected, strict=True)
        )
    except (TypeError, ValueError):
        return False


def check_matrix_shape(got, rows: int, cols: int, name: str) -> None:
    if not isinstance(got, list) or not all(isinstance(row, list) for row in got):
        raise CheckFailure(f"{name} should be a list of row lists, got {type(got).__name__}")
    if len(got) != rows:
        raise CheckFailure(f"{name} has {len(got)} rows, expected {rows}")
    for r, row in enumerate(got):
        if len(row) != cols:
            raise CheckFailure(f"{name} row {r} has {len(row)} entries, expected {cols}")


def check_matrix(got, expected, name: str = "C", known_mistakes=(), rel: float = 1e-9,
                 abs_tol: float = 1e-9, unwritten_hint: str = "") -> None:
    """Raise CheckFailure at the first wrong element of a nested-list matrix.

    known_mistakes: (what that mistake would produce, the question to ask the learner).
    """
    rows, cols = len(expected), len(expected[0]) if expected else 0
    check_matrix_shape(got, rows, cols, name)
    for r in range(rows):
        for c in range(cols):
            value, want = got[r][c], expected[r][c]
            if close(value, want, rel, abs_tol):
                continue
            message = f"{name}[{r},{c}] is {fmt(value)}, expected {fmt(want)}"
            if isinstance(value, float) and math.isnan(value) and not math.isnan(want):
                raise CheckFailure(f"{message}: {unwritten_hint or 'was it ever written?'}")
            for mistake_result, question in known_mistakes:
                if _all_close_matrix(got, mistake_result, rel, abs_tol):
                    raise CheckFailure(f"{message}: {question}")
            if all(v == 0 for row in got for v in row):
                raise CheckFailure(f"{message}: every entry is 0 — is the result computed and returned?")
            raise CheckFailure(message)


def check_vector(got, expected, name: str, known_mistakes=(), rel: float = 1e-9,
                 abs_tol: float = 1e-9, unwritten_hint: str = "") -> None:
    """The same as check_matrix for a flat list."""
    if not isinstance(got, (list, tuple)):
        raise CheckFailure(f"{name} should be a list, got {type(got).__name__}")
    if len(got) != len(expected):
        raise CheckFailure(f"{name} has {len(got)} entries, expected {len(expected)}")
    for i, (value, want) in enumerate(zip(got, expected, strict=True)):
        if close(value, want, rel, abs_tol):
            continue
        message = f"{name}[{i}] is {fmt(value)}, expected {fmt(want)}"
        if isinstance(value, float) and math.isnan(value) and not math.isnan(want):
            raise CheckFailure(f"{message}: {unwritten_hint or 'was it ever written?'}")
        for mistake_result, question in known_mistakes:
            if len(mistake_result) == len(got) and all(
                close(g, m, rel, abs_tol) for g, m in zip(got, mistake_result, strict=True)
            ):
                raise CheckFailure(f"{message}: {question}")
        raise CheckFailure(message)


def check_value(got, expected, what: str, known_mistakes=(), rel: float = 1e-9, abs_tol: float = 1e-9) -> None:
    """One number (or any value compared with ==) with an optional list of known mistakes."""
    if close(got, expected, rel, abs_tol):
        return
    message = f"{what} returned {fmt(got)}, expected {fmt(expected)}"
    for mistake_result, question in known_mistakes:
        if close(got, mistake_result, rel, abs_tol):
            raise CheckFailure(f"{message}: {question}")
    raise CheckFailure(message)
