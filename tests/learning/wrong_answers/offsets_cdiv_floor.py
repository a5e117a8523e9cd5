"""cdiv rounds down, so the last partial block gets no program."""

from learning.solutions.offsets import program_offsets, tail_mask  # noqa: F401


def cdiv(n, block):
    return n // block


def add_vectors(x, y, out, block):
    n = len(out)
    for pid in range(cdiv(n, block)):
        offsets = program_offsets(pid, block)
        for offset, valid in zip(offsets, tail_mask(offsets, n), strict=True):
            if valid:
                out[offset] = x[offset] + y[offset]
