"""What a check function receives: a seeded random source and named cases.

A check function walks through cases. Each case has a name ("toy 2x3 @ 3x2, BK=2"),
so a failure message and a time-out report can say exactly where things went wrong.
"""

from __future__ import annotations

import random
from contextlib import contextmanager


class CheckFailure(Exception):
    """The learner's code ran but its answer is wrong. The message says why."""


class Trial:
    def __init__(self, seed: int, verbose: bool = False, on_case=None):
        self.seed = seed
        self.rng = random.Random(seed)
        self.verbose = verbose
        self.cases_run = 0
        self.current_case: str | None = None
        self._on_case = on_case or (lambda name: None)

    @contextmanager
    def case(self, name: str):
        self.current_case = name
        self._on_case(name)
        if self.verbose:
            print(f"    case: {name}", flush=True)
        try:
            yield
        except CheckFailure as failure:
            raise CheckFailure(f"[{name}] {failure}") from None
        self.cases_run += 1
        self.current_case = None

    def sizes(self, fixed, extra: int = 2, low: int = 1, high: int = 300) -> list[int]:
        """The ragged sizes every check uses, plus a few fresh random ones."""
        return list(fixed) + [self.rng.randint(low, high) for _ in range(extra)]

    def floats(self, count: int, low: float = -4.0, high: float = 4.0) -> list[float]:
        return [self.rng.uniform(low, high) for _ in range(count)]

    def small_ints(self, count: int, low: int = -5, high: int = 5) -> list[float]:
        """Integer-valued floats: sums of them are exact, so answers compare exactly."""
        return [float(self.rng.randint(low, high)) for _ in range(count)]

    def matrix(self, rows: int, cols: int, integers: bool = True) -> list[list[float]]:
        make = self.small_ints if integers else self.floats
        return [make(cols) for _ in range(rows)]


class Part:
    """One named piece of an exercise (usually one function) and the check for it.

    todo: what the part checks, shown while a function it calls still raises NotImplementedError. Needed by a part
    not named after a function: that function's own TODO text would describe another part.
    """

    def __init__(self, name: str, check, needs: tuple[str, ...] = (), todo: str = ""):
        self.name = name
        self.check = check  # check(learner_module, trial); raises CheckFailure when wrong
        self.needs = needs or (name,)
        self.todo = todo
