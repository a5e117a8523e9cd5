"""The grid is n // block: the last, partial block gets no program."""

from learning.solutions.triton_add import add_kernel


def launch_add(x, y, out, block=1024):
    n = out.numel()
    add_kernel[(n // block,)](x, y, out, n, BLOCK=block)
