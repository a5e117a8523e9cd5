"""Each pair is combined right to left: fine for a sum, wrong for anything not commutative."""

import operator


def next_power_of_two(n):
    power = 1
    while power < n:
        power *= 2
    return power


def tree_reduce(values, combine, neutral):
    level = list(values) + [neutral] * (next_power_of_two(len(values)) - len(values))
    levels = [level]
    while len(level) > 1:
        level = [combine(level[i + 1], level[i]) for i in range(0, len(level), 2)]
        levels.append(level)
    return levels


def row_sums(matrix):
    return [tree_reduce(row, operator.add, 0.0)[-1][0] for row in matrix]
