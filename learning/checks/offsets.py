"""Checks for exercise 1 (lesson 1): cdiv, program offsets, tail masks, a simulated grid."""

from __future__ import annotations

from learning.checking import reference as ref
from learning.checking.compare import check_value, check_vector
from learning.checking.guarded_list import GuardedList, describe_offset, spans
from learning.checking.trial import CheckFailure, Part

RAGGED = [1, 7, 127, 255, 65]


def check_cdiv(module, trial) -> None:
    table = [(0, 4), (4, 4), (1, 4), (8, 4), (9, 4), (7, 3), (127, 32), (255, 64), (65, 64), (1, 1)]
    table += [(trial.rng.randint(1, 10_000), trial.rng.choice([16, 32, 64, 128])) for _ in range(5)]
    for n, block in table:
        with trial.case(f"cdiv({n}, {block})"):
            got = module.cdiv(n, block)
            if isinstance(got, float):
                raise CheckFailure(f"cdiv({n}, {block}) returned {got!r}, a float: keep it in integers, "
                                   "e.g. (n + block - 1) // block")
            check_value(got, ref.cdiv(n, block), f"cdiv({n}, {block})", known_mistakes=[
                (n // block, "the last, partial block is lost: round up, (n + block - 1) // block"),
                (n // block + 1, "one block too many when n is a multiple of block: "
                                 "use (n + block - 1) // block"),
            ])


def check_program_offsets(module, trial) -> None:
    for pid, block in [(0, 4), (2, 4), (1, 1), (3, 128)] + [(trial.rng.randint(0, 9), 8) for _ in range(3)]:
        with trial.case(f"program_offsets({pid}, {block})"):
            got = list(module.program_offsets(pid, block))
            want = [pid * block + lane for lane in range(block)]
            check_vector(got, want, f"program_offsets({pid}, {block})", known_mistakes=[
                (list(range(pid, pid + block)), "program pid starts at pid * block, not at pid"),
                (list(range(block)), "every program gets the same offsets: add pid * block"),
            ])


def check_tail_mask(module, trial) -> None:
    for pid, block, n in [(2, 4, 10), (0, 8, 8), (1, 8, 8), (3, 32, 127)] + [
        (trial.rng.randint(0, 4), 16, trial.rng.randint(1, 80)) for _ in range(3)
    ]:
        offsets = [pid * block + lane for lane in range(block)]
        with trial.case(f"tail_mask(offsets of program {pid} with block {block}, n={n})"):
            got = [bool(v) for v in module.tail_mask(offsets, n)]
            want = [o < n for o in offsets]
            check_vector(got, want, "mask", known_mistakes=[
                ([o <= n for o in offsets], f"offset {n} is one past the last element: use offset < n"),
            ])


def check_add_vectors(module, trial) -> None:
    for n in trial.sizes(RAGGED, extra=2):
        block = trial.rng.choice([4, 8, 32, 64])
        with trial.case(f"add_vectors with n={n}, block={block}"):
            x = GuardedList(trial.small_ints(n), "x")
            y = GuardedList(trial.small_ints(n), "y")
            out = GuardedList.poisoned(n, "out")
            module.add_vectors(x, y, out, block)
            if out.stray_stores:
                offset = out.stray_stores[0]
                raise CheckFailure(f"stray store to out at {describe_offset(offset, n, block)}: "
                                   "is the store masked with offset < n?")
            for buffer in (x, y):
                if buffer.stray_loads:
                    offset = buffer.stray_loads[0]
                    raise CheckFailure(f"load from {buffer.name} at {describe_offset(offset, n, block)}: "
                                       "loads need the mask too")
            missing = out.unwritten()
            if missing:
                first_program = missing[0] // block
                raise CheckFailure(
                    f"out[{spans(missing)}] never written (still NaN): with n={n} and block={block} "
                    f"the grid needs cdiv({n}, {block}) = {ref.cdiv(n, block)} program(s), and program "
                    f"{first_program} did not store these — is the grid count rounded down?")
            want = [a + b for a, b in zip(x, y, strict=True)]
            check_vector(list(out), want, "out")


PARTS = [
    Part("cdiv", check_cdiv),
    Part("program_offsets", check_program_offsets),
    Part("tail_mask", check_tail_mask),
    Part("add_vectors", check_add_vectors),
]
