"""Lesson 1 reference: which elements a program owns, and which of them are real."""


def cdiv(n, block):
    # Round up without floats: adding block - 1 pushes any remainder over the next multiple.
    return (n + block - 1) // block


def program_offsets(pid, block):
    start = pid * block
    return [start + lane for lane in range(block)]


def tail_mask(offsets, n):
    return [offset < n for offset in offsets]


def add_vectors(x, y, out, block):
    n = len(out)
    for pid in range(cdiv(n, block)):  # on a GPU these programs run side by side
        offsets = program_offsets(pid, block)
        mask = tail_mask(offsets, n)
        for offset, valid in zip(offsets, mask, strict=True):
            if valid:  # both the loads and the store stay inside the buffers
                out[offset] = x[offset] + y[offset]
