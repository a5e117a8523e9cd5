"""Exercise 3 (lesson 3): reduction trees.

A GPU block reduces its values in a tree: neighbours combine in pairs, level by level,
until one value remains. The block size is a power of two, so the values are padded
with a NEUTRAL element: one that changes nothing (0 for +, -inf for max).

Implement the three functions, then run:  python -m learning.check reduction
Standard library only.
"""


def next_power_of_two(n):
    """The smallest power of two >= n (for n >= 1). next_power_of_two(5) == 8, (8) == 8."""
    raise NotImplementedError("next_power_of_two")


def tree_reduce(values, combine, neutral):
    """Reduce `values` pairwise with combine(a, b), returning EVERY level as a list of lists.

    Level 0 is the values padded with `neutral` to a power-of-two length. Each next level
    combines neighbours: [combine(l[0], l[1]), combine(l[2], l[3]), ...]. The last level
    holds one value. Example with + and 0: [3, 1, 4] -> [[3, 1, 4, 0], [4, 4], [8]].
    """
    raise NotImplementedError("tree_reduce: pad, then combine neighbours until one value is left")


def row_sums(matrix):
    """The sum of each row, computed with tree_reduce."""
    raise NotImplementedError("row_sums")
