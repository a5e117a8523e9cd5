"""Checks for exercise 5 (lesson 5): RMSNorm and the residual add that feeds it."""

from __future__ import annotations

import math

from learning.checking import reference as ref
from learning.checking.compare import check_vector
from learning.checking.trial import CheckFailure, Part


def _mistakes(x, weight, eps):
    n = len(x)
    squares = sum(v * v for v in x)
    mean = sum(x) / n
    variance = sum((v - mean) ** 2 for v in x) / n
    return [
        ([v / (math.sqrt(squares / n) + eps) * w for v, w in zip(x, weight, strict=True)],
         "eps belongs inside the square root: x / sqrt(mean(x*x) + eps)"),
        ([v / math.sqrt(squares + eps) * w for v, w in zip(x, weight, strict=True)],
         "divide the sum of squares by the length: it is a mean, not a sum"),
        ([v / math.sqrt(squares / n + eps) for v in x], "the weight is not applied"),
        ([(v - mean) / math.sqrt(variance + eps) * w for v, w in zip(x, weight, strict=True)],
         "that is LayerNorm: RMSNorm does not subtract the mean"),
    ]


def _cases(trial):
    yield "x=[3, 4], weight 1, eps 0", [3.0, 4.0], [1.0, 1.0], 0.0
    yield "tiny inputs where eps matters (eps=0.5)", trial.floats(7, -0.1, 0.1), trial.floats(7, 0.5, 2), 0.5
    yield "ragged length 127", trial.floats(127), trial.floats(127, 0.5, 2.0), 1e-6
    n = trial.rng.randint(2, 300)
    yield f"random length {n}", trial.floats(n), trial.floats(n, 0.5, 2.0), 1e-5


def check_rmsnorm(module, trial) -> None:
    for label, x, weight, eps in _cases(trial):
        with trial.case(f"rmsnorm: {label}"):
            got = module.rmsnorm(list(x), list(weight), eps)
            check_vector(got, ref.rmsnorm(x, weight, eps), "y", known_mistakes=_mistakes(x, weight, eps),
                         rel=1e-9, abs_tol=1e-12)


def check_residual_rmsnorm(module, trial) -> None:
    for label, x, weight, eps in _cases(trial):
        residual = trial.floats(len(x), -1.0, 1.0)
        with trial.case(f"residual_rmsnorm: {label}"):
            result = module.residual_rmsnorm(list(x), list(residual), list(weight), eps)
            if not isinstance(result, tuple) or len(result) != 2:
                raise CheckFailure("residual_rmsnorm should return a pair: (normalised, new residual)")
            normalised, new_residual = result
            hidden = [a + b for a, b in zip(x, residual, strict=True)]
            check_vector(new_residual, hidden, "new residual", known_mistakes=[
                (x, "the new residual is x + residual (the sum the next layer adds to), not x"),
                (residual, "the new residual is x + residual, not the old residual"),
            ], abs_tol=1e-12)
            mistakes = [(ref.rmsnorm(x, weight, eps), "normalise x + residual, not x alone")]
            mistakes += _mistakes(hidden, weight, eps)
            check_vector(normalised, ref.rmsnorm(hidden, weight, eps), "normalised",
                         known_mistakes=mistakes, rel=1e-9, abs_tol=1e-12)


PARTS = [
    Part("rmsnorm", check_rmsnorm),
    Part("residual_rmsnorm", check_residual_rmsnorm),
]
