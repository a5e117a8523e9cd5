"""Checks for exercise 3 (lesson 3): pairwise reduction trees padded with a neutral element."""

from __future__ import annotations

import math
import operator

from learning.checking import reference as ref
from learning.checking.compare import check_value, check_vector, fmt
from learning.checking.trial import CheckFailure, Part


def check_next_power_of_two(module, trial) -> None:
    for n in [1, 2, 3, 5, 8, 9, 127, 255, 65, trial.rng.randint(1, 5000)]:
        with trial.case(f"next_power_of_two({n})"):
            want = ref.next_power_of_two(n)
            check_value(module.next_power_of_two(n), want, f"next_power_of_two({n})", known_mistakes=[
                (want * 2, f"{n} needs no padding beyond {want}: a power of two maps to itself"),
            ])


def _final(levels):
    if not isinstance(levels, list) or not levels or not isinstance(levels[-1], list):
        raise CheckFailure("tree_reduce should return the list of levels, the last one holding one value")
    return levels[-1][0] if len(levels[-1]) == 1 else levels[-1]


def check_tree_reduce(module, trial) -> None:
    cases = [
        ("sum of [3, 1, 4, 1, 5]", [3.0, 1.0, 4.0, 1.0, 5.0], operator.add, 0.0),
        ("max of all-negative values", [-3.0, -1.5, -2.0], max, -math.inf),
        ("one value", [7.0], operator.add, 0.0),
        ("random sum of 65", trial.small_ints(65), operator.add, 0.0),
        ("random max of 127", trial.floats(127, -9.0, -1.0), max, -math.inf),
    ]
    for name, values, combine, neutral in cases:
        with trial.case(f"tree_reduce: {name}"):
            levels = module.tree_reduce(list(values), combine, neutral)
            got = _final(levels)
            want = ref.tree_levels(values, combine, neutral)[-1][0]
            padded_with_zero = ref.tree_levels(values, combine, 0.0)[-1][0]
            check_value(got, want, f"the {name}", known_mistakes=[
                (padded_with_zero, f"the padding must be the neutral element you were given "
                                   f"({fmt(neutral)}), not 0: padding may not change the answer"),
            ])
    # Joining letters is not commutative, so the result shows which pairs were combined.
    letters = list("abcdefghijklmnopqrstuvwxyz")[: trial.rng.randint(5, 13)]
    with trial.case(f"tree_reduce joining {len(letters)} letters (shows the pairing)"):
        levels = module.tree_reduce(letters, operator.add, "")
        want = ref.tree_levels(letters, operator.add, "")
        if not isinstance(levels, list) or len(levels) != len(want):
            count = len(levels) if isinstance(levels, list) else "?"
            raise CheckFailure(f"expected {len(want)} levels for {len(letters)} values "
                               f"(padded to {len(want[0])}), got {count}")
        for depth, (got_level, want_level) in enumerate(zip(levels, want, strict=True)):
            check_vector(list(got_level), want_level, f"level {depth}", known_mistakes=[
                ([a + b for a, b in zip(want[depth - 1][: len(want_level)],
                                        want[depth - 1][len(want_level):], strict=True)] if depth else [],
                 "pairs should be neighbours (0 with 1, 2 with 3), combined left to right"),
                ([want[depth - 1][2 * i + 1] + want[depth - 1][2 * i] for i in range(len(want_level))]
                 if depth else [],
                 "combine(left, right) in that order: joining letters is not commutative, so the right-hand "
                 "value goes second"),
            ])


def check_row_sums(module, trial) -> None:
    for rows, cols in [(1, 1), (2, 3), (3, 127), (trial.rng.randint(1, 6), trial.rng.randint(1, 300))]:
        with trial.case(f"row_sums of a {rows}x{cols} matrix"):
            matrix = trial.matrix(rows, cols)
            got = module.row_sums(matrix)
            check_vector(got, [sum(row) for row in matrix], "row_sums", known_mistakes=[
                ([sum(col) for col in zip(*matrix, strict=True)], "those are column sums"),
            ])


PARTS = [
    Part("next_power_of_two", check_next_power_of_two),
    Part("tree_reduce", check_tree_reduce),
    Part("row_sums", check_row_sums),
]
