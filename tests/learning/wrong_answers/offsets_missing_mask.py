"""add_vectors ignores the mask: the last program stores past the end of out."""

from learning.solutions.offsets import cdiv, program_offsets, tail_mask  # noqa: F401


def add_vectors(x, y, out, block):
    for pid in range(cdiv(len(out), block)):
        for offset in program_offsets(pid, block):
            out[offset] = x[offset] + y[offset]
