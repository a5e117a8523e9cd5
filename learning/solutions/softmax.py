"""Lesson 4 reference: softmax that cannot overflow."""

import math


def softmax(row):
    top = max(row)  # shifting by the max makes the largest exponent exp(0) = 1
    exps = [math.exp(x - top) for x in row]
    total = sum(exps)
    return [e / total for e in exps]


def softmax_rows(matrix):
    return [softmax(row) for row in matrix]
