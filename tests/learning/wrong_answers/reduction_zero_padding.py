"""tree_reduce pads with 0 instead of the neutral element it was given."""

import operator

from learning.solutions.reduction import next_power_of_two


def tree_reduce(values, combine, neutral):
    level = list(values) + [0.0] * (next_power_of_two(len(values)) - len(values))
    levels = [level]
    while len(level) > 1:
        level = [combine(level[i], level[i + 1]) for i in range(0, len(level), 2)]
        levels.append(level)
    return levels


def row_sums(matrix):
    return [tree_reduce(row, operator.add, 0.0)[-1][0] for row in matrix]
