"""Checks for exercise 6 (lesson 6): three loops, tile_ranges, tiled accumulation."""

from __future__ import annotations

import copy
import math

from learning.checking import reference as ref
from learning.checking.compare import check_matrix, check_value
from learning.checking.guarded_list import GuardedMatrix
from learning.checking.trial import CheckFailure, Part

TOY_A = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
TOY_B = [[7.0, 8.0], [9.0, 10.0], [11.0, 12.0]]


def _shape(m):
    return f"{len(m)}x{len(m[0])}"


def _k_mistakes(a, b, block_k):
    """Results of the usual K-loop mistakes, each with the question to ask."""
    inner = len(b)
    steps = ref.cdiv(inner, block_k)
    mistakes = [(ref.matmul_last_k_tile(a, b, block_k), "is the accumulator reset inside the K loop?")]
    if steps > 1:
        mistakes.append((ref.matmul_k_slice(a, b, 0, block_k),
                         "only the first K step was added: does the K loop visit every K tile?"))
    if inner % block_k:
        mistakes.append((ref.matmul_k_slice(a, b, 0, inner // block_k * block_k),
                         f"the last, partial K step is missing: K={inner} with BK={block_k} "
                         f"needs cdiv({inner}, {block_k}) = {steps} steps"))
    return mistakes


def check_matmul_loops(module, trial) -> None:
    cases = [("toy 2x3 @ 3x2", TOY_A, TOY_B), ("1x1 @ 1x1", [[3.0]], [[-2.0]])]
    for m, k, n in [(7, 3, 5), (3, 127, 2), (trial.rng.randint(1, 9), trial.rng.randint(1, 65),
                                             trial.rng.randint(2, 9))]:
        cases.append((f"ragged {m}x{k} @ {k}x{n}", trial.matrix(m, k), trial.matrix(k, n)))
    for label, a, b in cases:
        with trial.case(label):
            a_before, b_before = copy.deepcopy(a), copy.deepcopy(b)
            got = module.matmul_loops(a, b)
            if isinstance(got, list) and len(got) > 1 and len({id(row) for row in got}) < len(got):
                raise CheckFailure("two rows of C are the same list object: [[0.0] * N] * M repeats one "
                                   "row M times, so a write to one row shows up in all of them — build "
                                   "separate rows with [[0.0] * N for _ in range(M)]")
            check_matrix(got, ref.matmul(a, b), "C")
            if a != a_before or b != b_before:
                raise CheckFailure("matmul_loops changed its inputs: A and B must be left as they were")
    a, b = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [[1.0, 2.0], [3.0, 4.0]]
    with trial.case("shapes that do not fit: A 2x3 @ B 2x2"):
        try:
            module.matmul_loops(a, b)
        except ValueError:
            return
        except NotImplementedError:
            raise
        except Exception as error:
            raise CheckFailure(f"raised {type(error).__name__} ({error}); check the shapes first and "
                               "raise ValueError: A's column count (3) must equal B's row count (2)") from None
        raise CheckFailure("no error for A 2x3 @ B 2x2: A's column count (3) must equal B's row count (2) "
                           "— raise ValueError")


def check_tile_ranges(module, trial) -> None:
    cases = [(7, 3), (6, 3), (1, 4), (5, 2), (127, 32), (0, 4)]
    cases += [(trial.rng.randint(1, 300), trial.rng.choice([1, 2, 16, 64])) for _ in range(3)]
    for size, tile in cases:
        with trial.case(f"tile_ranges({size}, {tile})"):
            got = [tuple(r) for r in module.tile_ranges(size, tile)]
            want = ref.tile_ranges(size, tile)
            starts = range(0, size, tile)
            check_value(got, want, f"tile_ranges({size}, {tile})", known_mistakes=[
                ([(s, min(s + tile, size) - 1) for s in starts],
                 "these are closed intervals; use half-open ones: start included, stop excluded"),
                ([(s, s + tile) for s in starts], "the last tile runs past the end: clip the stop "
                                                  f"with min(start + tile, size), here {size}"),
                (want[:-1], "the last, partial tile is missing: the tile count must round up (cdiv)"),
                (want + [(size, size)], f"an extra empty tile ({size}, {size}): one tile too many when "
                                        "size is a multiple of tile"),
            ])


def _tiled_cases(trial):
    yield "toy 2x3 @ 3x2, BM=2, BN=2, BK=2", TOY_A, TOY_B, (2, 2, 2)
    yield ("exit check: 5x5 @ 5x7, BM=2, BN=3, BK=2", trial.matrix(5, 5), trial.matrix(5, 7), (2, 3, 2))
    yield "1x1 @ 1x1 with tiles larger than the matrix", [[3.0]], [[-2.0]], (2, 2, 2)
    for _ in range(2):
        m, k, n = (trial.rng.choice([1, 7, 13, 17]) for _ in range(3))
        blocks = tuple(trial.rng.randint(1, 8) for _ in range(3))
        yield (f"ragged {m}x{k} @ {k}x{n}, BM={blocks[0]}, BN={blocks[1]}, BK={blocks[2]}",
               trial.matrix(m, k), trial.matrix(k, n), blocks)


def check_matmul_tiled(module, trial) -> None:
    for label, a, b, (bm, bn, bk) in _tiled_cases(trial):
        with trial.case(label):
            rows, cols = len(a), len(b[0])
            c = GuardedMatrix(rows, cols, "C")
            module.matmul_tiled(a, b, c, bm, bn, bk)
            strays = c.stray_stores()
            if strays:
                r, col = strays[0]
                raise CheckFailure(
                    f"stray store to C[{r},{col}], outside the {rows}x{cols} matrix, from the tile at "
                    f"rows {r // bm * bm}..{r // bm * bm + bm - 1}, columns {col // bn * bn}.."
                    f"{col // bn * bn + bn - 1} (program pid_m={r // bm}, pid_n={col // bn}): "
                    "are the tile ranges clipped to the matrix edge?")
            got = c.as_lists()
            want = ref.matmul(a, b)
            first_nan = next(((r, j) for r in range(rows) for j in range(cols) if math.isnan(got[r][j])), None)
            if first_nan == (0, 0):
                unwritten = ("C arrives filled with NaN, like fresh GPU memory, so adding into it keeps "
                             "the NaN: sum into a zeroed accumulator and store it after the K loop")
            elif first_nan:
                r, j = first_nan
                unwritten = (f"it was never written — the tile of rows {r // bm * bm}.., columns "
                             f"{j // bn * bn}.. was skipped: do the tile loops reach the last, partial tile?")
            else:
                unwritten = ""
            check_matrix(got, want, "C", known_mistakes=_k_mistakes(a, b, bk), unwritten_hint=unwritten)


PARTS = [
    Part("matmul_loops", check_matmul_loops),
    Part("tile_ranges", check_tile_ranges),
    Part("matmul_tiled", check_matmul_tiled, needs=("matmul_tiled", "tile_ranges")),
]
