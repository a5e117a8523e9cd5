"""Exercise 5 (lesson 5): RMSNorm after a residual add.

rmsnorm(x)[i] = x[i] / sqrt(mean(x * x) + eps) * weight[i]

Implement both functions, then run:  python -m learning.check rmsnorm
Standard library only.
"""


def rmsnorm(x, weight, eps=1e-6):
    """Normalise the list x by its root mean square, then scale by weight (same length as x)."""
    raise NotImplementedError("rmsnorm")


def residual_rmsnorm(x, residual, weight, eps=1e-6):
    """Add the residual first, then normalise. Return (normalised, new_residual).

    new_residual is x + residual: the running sum that the next layer adds to.
    """
    raise NotImplementedError("residual_rmsnorm: add, then normalise; hand back the sum as well")
