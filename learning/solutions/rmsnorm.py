"""Lesson 5 reference: RMSNorm, and the residual add that usually comes right before it."""

import math


def rmsnorm(x, weight, eps=1e-6):
    mean_square = sum(v * v for v in x) / len(x)
    inverse_rms = 1.0 / math.sqrt(mean_square + eps)  # eps inside the root keeps zero rows finite
    return [v * inverse_rms * w for v, w in zip(x, weight, strict=True)]


def residual_rmsnorm(x, residual, weight, eps=1e-6):
    hidden = [a + b for a, b in zip(x, residual, strict=True)]
    return rmsnorm(hidden, weight, eps), hidden  # the sum is what the next layer adds to
