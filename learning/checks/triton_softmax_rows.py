"""Checks for exercise 18 (lesson 8): softmax over [ROWS, BLOCK] tiles, several whole rows per program.

The launch part stands a spy in for `softmax_rows_kernel` (the launcher looks the kernel up in its module when it
runs), so each launch's grid, ROWS and BLOCK are seen: a kernel that is right with one row per program, or a
grid of one program per row, gives right numbers and still fails. The spy checks them before the kernel runs,
so the guard zones around out (sized for the right ROWS and BLOCK) hold every stray store.
"""

from __future__ import annotations

import math
from contextlib import contextmanager

import torch

from learning.checking import reference as ref
from learning.checking import triton_support as ts
from learning.checking.compare import check_value
from learning.checking.tensor_guards import GuardedOutput, fmt_value, padded_input
from learning.checking.trial import CheckFailure, Part
from learning.checks.triton_softmax import zero_padded_softmax

TILE = ref.ROW_TILE_ELEMENTS
PLAN_ROWS = [1, 2, 3, 7, 8, 65, 127, 128, 255, 1000, 4096, 262144]
PLAN_COLS = [1, 7, 65, 128, 300, 1000, 1024, 4096, 5000, 8192]
LAUNCH_ROWS = [7, 65, 127, 255, 1]
LAUNCH_COLS = [1, 7, 65, 128, 300]


def _pair(got):
    return tuple(got) if isinstance(got, (list, tuple)) else got


def check_rows_per_program(module, trial) -> None:
    cases = [(n_rows, n_cols, TILE) for n_rows in PLAN_ROWS for n_cols in PLAN_COLS]
    cases += [(n_rows, n_cols, tile) for n_rows, n_cols in [(262144, 128), (65, 7), (3, 100), (7, 1), (1000, 300)]
              for tile in (1, 64, 1024, 16384)]
    for _ in range(8):
        cases.append((trial.rng.randint(1, 5000), trial.rng.randint(1, 8192),
                      trial.rng.choice([1, 256, 1024, TILE, TILE, 8192])))
    for n_rows, n_cols, tile in cases:
        extra = "" if tile == TILE else f", tile_elements={tile}"
        call = f"rows_per_program({n_rows}, {n_cols}{extra})"
        with trial.case(call):
            rows, block = ref.rows_per_program(n_rows, n_cols, tile)
            if tile == TILE:
                got = module.rows_per_program(n_rows, n_cols)  # the default is the library's 4096
            else:
                got = module.rows_per_program(n_rows, n_cols, tile)
            cap = ref.next_power_of_two(n_rows)
            other_tiles = [] if tile != TILE else [
                (ref.rows_per_program(n_rows, n_cols, other), f"that plan fills a tile of {other}: the default "
                                                               f"tile_elements is {TILE}, the library's TILE_ELEMENTS")
                for other in (512, 1024, 2048, 8192, 16384)]
            check_value(_pair(got), (rows, block), call, known_mistakes=[
                ((block, rows), "return (ROWS, BLOCK), in that order"),
                ((max(1, tile // block), block),
                 f"cap ROWS at the next power of two of n_rows ({cap}): a program of "
                 f"{max(1, tile // block)} rows for {n_rows} row(s) would be mostly spare rows"),
                ((min(max(1, tile // block), n_rows), block),
                 f"cap ROWS at the next power of two of n_rows ({cap}), not at n_rows: tl.arange(0, ROWS) needs a "
                 "power of two"),
                ((min(tile // block, cap), block),
                 f"a row of {n_cols} is wider than a tile of {tile}, but it still needs a program: ROWS is at "
                 "least 1 (max(1, tile_elements // BLOCK))"),
                ((min(max(1, tile // n_cols), cap), block),
                 "divide the tile by BLOCK, the row padded to a power of two, not by n_cols: ROWS must be a power "
                 "of two, and each row takes BLOCK lanes of the tile"),
                ((rows, n_cols), "BLOCK is the row padded to a power of two: triton.next_power_of_2(n_cols)"),
                ((min(max(1, tile // n_cols), cap), n_cols),
                 "BLOCK is the row padded to a power of two, triton.next_power_of_2(n_cols), and ROWS is "
                 "tile_elements // BLOCK"),
            ] + other_tiles)


class LaunchSpy:
    """Stands in for the learner's kernel: records each launch's grid, ROWS and BLOCK, hands them to `before`
    (which raises CheckFailure for a wrong plan), then launches the kernel."""

    def __init__(self, kernel, before):
        self.kernel = kernel
        self.before = before
        self.launches: list[tuple[tuple[int, ...], int | None, int | None]] = []

    def __getitem__(self, grid):
        def launch(*args, **kwargs):
            shape, bound = ts.bind_launch(self.kernel, grid, args, kwargs)
            launch = (shape, ts.constant(bound.get("ROWS")), ts.constant(bound.get("BLOCK")))
            self.launches.append(launch)
            self.before(launch)
            return self.kernel[grid](*args, **kwargs)

        return launch

    def __getattr__(self, name):
        return getattr(self.kernel, name)


@contextmanager
def spying(module, n_rows, n_cols, tile):
    kernel = module.softmax_rows_kernel
    spy = LaunchSpy(kernel, lambda launch: _check_plan(launch, n_rows, n_cols, tile))
    module.softmax_rows_kernel = spy  # launch_softmax_rows looks the name up in its module when it runs
    try:
        yield spy
    finally:
        module.softmax_rows_kernel = kernel


def _cases(trial):
    """(n_rows, n_cols, tile_elements, what is special about the case)."""
    for n_cols in LAUNCH_COLS:  # many rows come early: a NaN in one row and not another tells overflow from strays
        for n_rows in LAUNCH_ROWS:
            yield n_rows, n_cols, TILE, ""
    yield 3, 4096, TILE, ", rows of 4096 (one row fills the tile: ROWS = 1)"
    yield 65, 100, 1, ", tile_elements=1 (ROWS = 1: one row per program)"
    yield 65, 7, 64, ", tile_elements=64 (ROWS = 8: the last program owns 1 row and has 7 spare)"
    yield trial.rng.randint(1, 300), trial.rng.randint(1, 300), TILE, " (random)"


def _input(trial, gen, n_rows, n_cols, pad):
    values = ts.randn(trial, n_rows, n_cols, gen=gen, scale=3.0)
    values[0] += 1000.0  # overflows unless each row's max is subtracted
    if n_rows > 1:
        values[-1] -= 20.0  # all negative: a masked lane that loads 0 would win the max
    return padded_input(values, pad=pad)  # NaN after every row and after the last row


def _call(module, x, out, tile):
    if tile == TILE:
        return ts.call_kernel(module.launch_softmax_rows, x, out)
    return ts.call_kernel(module.launch_softmax_rows, x, out, tile_elements=tile)


def _the_launch(spy) -> tuple[tuple[int, ...], int | None, int | None]:
    if not spy.launches:
        raise CheckFailure("launch_softmax_rows never launched softmax_rows_kernel: launch it by that name, "
                           "softmax_rows_kernel[grid](...), so the check can count its programs")
    if len(spy.launches) > 1:
        raise CheckFailure(f"launch_softmax_rows launched softmax_rows_kernel {len(spy.launches)} times: one "
                           "launch of triton.cdiv(n_rows, ROWS) programs covers every row")
    return spy.launches[0]


def _check_plan(launch, n_rows, n_cols, tile) -> None:
    grid, got_rows, got_block = launch
    rows, block = ref.rows_per_program(n_rows, n_cols, tile)
    programs = ref.cdiv(n_rows, rows)
    extra = "" if tile == TILE else f", {tile}"
    plan = f"rows_per_program({n_rows}, {n_cols}{extra}) is ({rows}, {block})"
    if (got_rows, got_block) != (rows, block):
        if got_rows == 1 and rows > 1:
            raise CheckFailure(f"launched with ROWS=1, one row per program: {plan}, so each program should own "
                               f"{rows} rows. Pass ROWS and BLOCK from rows_per_program")
        why = "" if tile == TILE else "; pass tile_elements on to rows_per_program"
        raise CheckFailure(f"launched with ROWS={got_rows}, BLOCK={got_block}: {plan}{why}")
    if grid[1:] and any(n != 1 for n in grid[1:]):
        raise CheckFailure(f"launched a grid of {grid}: the grid is 1-D, (triton.cdiv(n_rows, ROWS),)")
    if grid[0] != programs:
        if grid[0] == n_rows and n_rows != programs:
            raise CheckFailure(f"launched {n_rows} programs for {n_rows} rows with ROWS={rows}: the grid is "
                               f"triton.cdiv(n_rows, ROWS) = {programs} program{'s' * (programs != 1)}; the other "
                               f"{n_rows - programs} only re-read the last row and store nothing")
        raise CheckFailure(f"launched {grid[0]} programs of ROWS={rows} rows for {n_rows} rows: the grid is "
                           f"(triton.cdiv(n_rows, ROWS),) = ({programs},)")


def _stray_message(position, value, n_rows, n_cols, rows_per) -> str:
    row, col = position
    where = f"stray store of {fmt_value(value)} at out[{row},{col}] (outside the {n_rows}x{n_cols} output)"
    if row >= n_rows:
        program, lane = divmod(row, rows_per)
        return (f"{where}: program {program}, tile row {lane}, a spare row {row - n_rows + 1} past the last row "
                "— mask the store with owned = rows < n_rows ([ROWS, 1]) as well as in_row (cols < n_cols)")
    if row == 0 and col >= n_cols:
        return f"{where}: program 0, tile row 0, column lane {col} — is the store masked with in_row (cols < n_cols)?"
    if 0 < row < n_rows and col >= n_cols:
        # A missing column mask would have stored past row 0's end first: this row starts in the wrong place.
        return (f"{where}: row 0's stores stayed inside out, but this one did not — are out's rows "
                "stride_y_row = out.stride(0) apart in the store's pointers (not x.stride(0))?")
    return f"{where}: are out's rows stride_y_row = out.stride(0) apart in the store's pointers?"


def _unwritten_message(missing, n_rows, programs, rows_per) -> str:
    """The grid and ROWS are right by now (the spy checked them): the kernel skipped rows or lanes."""
    row, col = (int(i) for i in missing.nonzero()[0])
    where = f"out[{row},{col}] never written"
    reached = min(n_rows, programs - 1 + rows_per)  # where rows = pid + tl.arange(0, ROWS) would stop
    if reached < n_rows and not bool(missing[:reached].any()) and bool(missing[reached:].all()):
        return (f"{where}, nor any row after row {reached - 1}: program pid's rows are pid * ROWS + "
                "tl.arange(0, ROWS); without * ROWS the programs overlap and stop short")
    return (f"{where}: does every program store all of its owned rows (mask owned & in_row, rows pid * ROWS + "
            "tl.arange(0, ROWS))?")


def _along_columns(x: torch.Tensor, rows_per: int, clamped: bool) -> torch.Tensor:
    """What a kernel computes if it takes the max and the sum along axis=0: a softmax down each column of a
    program's tile, spare rows included (a copy of the last row when clamped, -inf when masked)."""
    n_rows = x.shape[0]
    out = torch.empty_like(x)
    for start in range(0, n_rows, rows_per):
        index = torch.clamp(torch.arange(start, start + rows_per), max=n_rows - 1)
        tile = x[index].clone()
        owned = min(rows_per, n_rows - start)
        if not clamped:
            tile[owned:] = -math.inf
        out[start:start + owned] = torch.softmax(tile, dim=0)[:owned]
    return out


def _same(got: torch.Tensor, result: torch.Tensor) -> bool:
    return ts.first_difference(got, result, 1e-4, 1e-6) is None


def _diagnose(got, x, row, rows_per, block) -> str:
    nan_rows = torch.isnan(got).any(dim=1)
    if bool(nan_rows[row]):
        huge = x.max(dim=1).values > 100  # row 0, shifted by +1000
        overflow = ("row 0's values are near 1000, and exp(1000) overflows to inf: subtract each row's max "
                    "before tl.exp")
        masked = "mask the load with in_row (cols < n_cols), other=-float('inf')"
        if bool((nan_rows & ~huge).any()):
            return f"a NaN came from a lane outside the row: {masked}"
        if x.shape[1] == block or bool((~huge).any()):  # no padded lanes, or the other rows came out right
            return overflow
        return f"either {overflow}, or a NaN came from a padded lane outside the row: {masked}"
    if _same(got, zero_padded_softmax(x)):
        return ("padded columns must load -inf (other=-float('inf')) so exp() turns them into 0; with other=0 "
                "they raise the max of a negative row and add to every row's sum")
    if any(_same(got, _along_columns(x, rows_per, clamped)) for clamped in (True, False)):
        return ("each column of the program's tile sums to 1, not each row: in a [ROWS, BLOCK] tile a row runs "
                "along axis=1. Take tl.max(x, axis=1) and tl.sum(..., axis=1), and broadcast them back with [:, None]")
    want = torch.softmax(x.double(), dim=1)
    if row > 0 and _same(got[:1], want[:1]):
        return "row 0 is right but this row is not: pass each tensor's own row stride (x.stride(0), out.stride(0))"
    total = float(got[row].double().sum())
    if not math.isclose(total, 1.0, rel_tol=1e-3):
        return (f"row {row} sums to {total:.4g}, not 1: are the max and the sum each row's own (axis=1, broadcast "
                "back with [:, None])?")
    return ""


def check_launch_softmax_rows(module, trial) -> None:
    gen = ts.generator(trial)
    for n_rows, n_cols, tile, special in _cases(trial):
        rows, block = ref.rows_per_program(n_rows, n_cols, tile)
        shifts = "row 0 shifted by +1000" + (", the last by -20" if n_rows > 1 else "")
        with trial.case(f"a {n_rows}x{n_cols} input{special}, {shifts}, padded rows"):
            pad = max(rows, block - n_cols, 8)  # room for every spare row and every padded column
            x = _input(trial, gen, n_rows, n_cols, pad + 3)  # a row stride unlike out's
            out = GuardedOutput((n_rows, n_cols), torch.float32, ts.device(), pad=pad)
            with spying(module, n_rows, n_cols, tile) as spy:
                result = _call(module, x, out.view, tile)
            _the_launch(spy)
            if not (isinstance(result, torch.Tensor) and result.data_ptr() == out.view.data_ptr()
                    and tuple(result.shape) == (n_rows, n_cols)):
                raise CheckFailure(f"launch_softmax_rows(x, out) returned {type(result).__name__}, not out: "
                                   "return the tensor it wrote")
            strays = out.stray_stores()
            if strays:
                raise CheckFailure(_stray_message(*strays[0], n_rows, n_cols, rows))
            missing = out.unwritten_mask()
            if bool(missing.any()):
                raise CheckFailure(_unwritten_message(missing, n_rows, ref.cdiv(n_rows, rows), rows))
            got = out.written()
            x_cpu = x.detach().cpu().float()
            diff = ts.first_difference(got, torch.softmax(x_cpu.double(), dim=1), rtol=1e-4, atol=1e-6)
            if diff:
                index, got_value, want_value = diff
                ts.fail_at("out", index, got_value, want_value, _diagnose(got, x_cpu, index[0], rows, block))
    n_rows, n_cols = 7, 65
    with trial.case(f"launch_softmax_rows(x) without out, a {n_rows}x{n_cols} input"):
        x = _input(trial, gen, n_rows, n_cols, 16)
        with spying(module, n_rows, n_cols, TILE) as spy:
            result = ts.call_kernel(module.launch_softmax_rows, x)
        _the_launch(spy)
        if not isinstance(result, torch.Tensor) or tuple(result.shape) != (n_rows, n_cols):
            shape = f" of shape {tuple(result.shape)}" if isinstance(result, torch.Tensor) else ""
            raise CheckFailure(f"launch_softmax_rows(x) returned {type(result).__name__}{shape}: with no out, "
                               f"allocate a {n_rows}x{n_cols} float32 tensor (x.new_empty), write it and return it")
        got = result.detach().cpu().float()
        diff = ts.first_difference(got, torch.softmax(x.detach().cpu().double(), dim=1), rtol=1e-4, atol=1e-6)
        if diff:
            ts.fail_at("y", *diff, "was the new tensor passed to the kernel, with its own row stride?")


PARTS = [
    Part("rows_per_program", check_rows_per_program),
    Part("launch_softmax_rows", check_launch_softmax_rows,
         needs=("rows_per_program", "softmax_rows_kernel", "launch_softmax_rows")),
]
