"""Exercise 4 (lesson 4): a softmax that does not overflow.

softmax(x)[i] = exp(x[i]) / sum_j exp(x[j]). Written directly, exp(1000) overflows.

Implement both functions, then run:  python -m learning.check softmax
Standard library only (use math.exp).
"""


def softmax(row):
    """The softmax of a list of floats, safe for large values and for -inf entries."""
    raise NotImplementedError("softmax: what can you subtract without changing the answer?")


def softmax_rows(matrix):
    """softmax applied to every row of a list of row lists."""
    raise NotImplementedError("softmax_rows")
