"""Exercise 1 (lesson 1): offsets and masks.

A Triton program handles a block of `block` neighbouring elements. Here you compute,
in plain Python, what each program owns and which of those elements really exist.

Implement the four functions, then run:  python -m learning.check offsets
Standard library only.
"""


def cdiv(n, block):
    """How many blocks of `block` elements cover n elements (round UP). Integers only.

    cdiv(9, 4) == 3, cdiv(8, 4) == 2, cdiv(0, 4) == 0.
    """
    raise NotImplementedError("cdiv: round n / block up, in integer arithmetic")


def program_offsets(pid, block):
    """The list of element offsets program `pid` owns: block of them, starting at pid * block."""
    raise NotImplementedError("program_offsets: start at pid * block")


def tail_mask(offsets, n):
    """A list of booleans, True where the offset is a real element of an n-element array."""
    raise NotImplementedError("tail_mask: which offsets are inside the array?")


def add_vectors(x, y, out, block):
    """Write x[i] + y[i] into out[i] for every i < len(out), the way a grid of programs would.

    Run programs 0, 1, ..., cdiv(len(out), block) - 1 one after another. Each program
    computes its offsets and mask, and loads and stores ONLY where the mask is True.
    `out` is already allocated (and filled with NaN); do not return anything.
    """
    raise NotImplementedError("add_vectors: loop over the programs of the grid")
