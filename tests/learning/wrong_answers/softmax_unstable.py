"""Softmax without subtracting the max: exp(1000) overflows."""

import math


def softmax(row):
    exps = [math.exp(x) for x in row]
    total = sum(exps)
    return [e / total for e in exps]


def softmax_rows(matrix):
    return [softmax(row) for row in matrix]
