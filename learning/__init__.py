"""The tilelab course: lessons, exercises, a checker and traced walkthroughs.

Run everything from the repository root:

    python -m learning.check --list
    python -m learning.explain matmul

The checker core and the CPU exercises use only the Python standard library.
"""
