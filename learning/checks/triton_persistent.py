"""Checks for exercise 20 (workshop I9): a persistent matmul. The grid is min(tiles, sms) programs, and program pid
computes tiles pid, pid + programs, pid + 2 * programs, ... of C, each placed in GROUP_M order, each with a fresh
float32 accumulator.

The launch part stands a spy in for `persistent_matmul_kernel` (as exercise 19's checks do; the launcher looks the
kernel up in its module when it runs). Before the kernel runs, the spy checks the grid, the block sizes, GROUP_M, and
that out is handed over untouched.

On Triton's interpreter the programs run one after another, so the spy also looks at C between one program and the
next (`programs_in_order` in learning/checking/triton_support.py): it takes what the program wrote, sets C back to
its marked NaNs, and puts everything back after the last program. It then knows exactly which tiles each program
wrote, even a tile written again with the same values: a program that writes another program's tile (a loop
stepping by 1, or tiles placed in row-major order instead of GROUP_M order) fails, even though C comes out right.
The watch stops the launch at the first such program; the others would only take time. On a GPU only what the
launch leaves behind is checked, so there the runner checks once more on the interpreter (`with_the_watch` in
learning/checking/runner.py).

What no run on the interpreter can show: the order in which one program writes its own tiles, a program writing its
own tile twice, and anything about speed: whether the programs really stay on their SMs, and whether one tile's
stores overlap the next tile's loads.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch

from learning.checking import reference as ref
from learning.checking import triton_support as ts
from learning.checking.compare import check_value
from learning.checking.tensor_guards import POISON_BITS, GuardedOutput, fmt_value, padded_input
from learning.checking.trial import CheckFailure, Part
from learning.checking.triton_support import programs_in_order

H200_SMS = ref.H200_SMS


def _tiles(numbers, limit: int = 8) -> str:
    numbers = list(numbers)
    shown = ", ".join(str(t) for t in numbers[:limit])
    return shown + (f", ... ({len(numbers)} in all)" if len(numbers) > limit else "")


def _places(places, limit: int = 6) -> str:
    places = list(places)
    shown = ", ".join(f"({r}, {c})" for r, c in places[:limit])
    return shown + (", ..." if len(places) > limit else "")


def _first_programs(count: int) -> str:
    return "program 0" if count == 1 else "programs 0 and 1" if count == 2 else f"programs 0 to {count - 1}"


# -- part 1: the grid ---------------------------------------------------------------------------------------------


def check_persistent_grid(module, trial) -> None:
    cases = [(4096, 4096, 128, 256, 132), (16, 4096, 64, 64, 132), (1000, 1000, 128, 64, 132),
             (4096, 11008, 128, 256, 132), (65, 127, 32, 32, 5), (33, 40, 32, 32, 8), (1, 1, 16, 16, 4),
             (100, 100, 16, 16, 1), (63, 64, 64, 64, 4), (100, 300, 16, 16, 6)]
    for _ in range(6):
        cases.append((trial.rng.randint(1, 3000), trial.rng.randint(1, 3000), trial.rng.choice([16, 32, 64, 128]),
                      trial.rng.choice([16, 32, 64, 128, 256]), trial.rng.choice([1, 3, 4, 8, 66, 132])))
    for m, n, block_m, block_n, sms in cases:
        call = f"persistent_grid({m}, {n}, {block_m}, {block_n}, {sms})"
        with trial.case(call):
            tiles = ref.tile_count(m, n, block_m, block_n)
            want = ref.persistent_grid(m, n, block_m, block_n, sms)
            floor_tiles = (m // block_m) * (n // block_n)
            check_value(module.persistent_grid(m, n, block_m, block_n, sms), want, call, known_mistakes=[
                (tiles, f"that is one program per tile, exercise 12's grid. A persistent grid has at most one "
                        f"program per SM, and each program loops over its tiles: min(tiles, sms) = "
                        f"min({tiles}, {sms})"),
                (sms, f"C has only {tiles} tile(s): with {sms} programs, {sms - tiles} of them would find their "
                      f"list of tiles empty. The grid is min(tiles, sms)"),
                (max(tiles, sms), "the grid is the smaller of the two, min(tiles, sms)"),
                (ref.cdiv(tiles, sms), f"that is how many tiles the busiest program takes, ceil({tiles} / {sms}) "
                                       "(workshop I5's waves), not how many programs there are: min(tiles, sms)"),
                (max(1, min(floor_tiles, sms)), "a tile that hangs over C's edge is still a tile: "
                                                "cdiv(m, block_m) * cdiv(n, block_n)"),
            ])


def _as_list(got):
    if isinstance(got, (list, tuple, range)):
        return [int(t) if isinstance(t, int) else t for t in got]
    return got


def check_tiles_of_program(module, trial) -> None:
    cases = [(0, 4, 12), (3, 4, 12), (2, 5, 12), (1, 5, 12), (4, 5, 12), (5, 132, 512), (131, 132, 512),
             (0, 1, 3), (0, 4, 1), (0, 3, 3), (2, 3, 8), (6, 7, 20)]
    for _ in range(6):
        programs = trial.rng.randint(1, 140)
        tiles = trial.rng.randint(programs, 600)
        cases.append((trial.rng.randrange(programs), programs, tiles))
    for pid, programs, tiles in cases:
        call = f"tiles_of_program({pid}, {programs}, {tiles})"
        with trial.case(call):
            want = ref.tiles_of_program(pid, programs, tiles)
            per = ref.cdiv(tiles, programs)
            whole = (tiles // programs) * programs
            check_value(_as_list(module.tiles_of_program(pid, programs, tiles)), want, call, known_mistakes=[
                (list(range(pid, tiles)), f"program {pid} takes one tile per wave, not every tile from {pid} on: "
                                          f"its next tile is {pid} + programs = {pid + programs}. The tiles in "
                                          "between belong to the other programs"),
                (list(range(pid * per, min(pid * per + per, tiles))),
                 f"a contiguous share of {per} tiles covers every tile once too, but the programs take tiles one "
                 "wave apart: pid, pid + programs, ... So the programs that run at the same time work on "
                 "neighbouring tiles (one GROUP_M band), which read the same panels of A and B"),
                (list(range(pid, whole, programs)),
                 f"{tiles} tiles over {programs} programs are {tiles // programs} whole wave(s) and "
                 f"{tiles % programs} tile(s) more: the last, partial wave belongs to programs 0 to "
                 f"{tiles % programs - 1}. Stop at tiles, not at (tiles // programs) * programs"),
                (list(range(pid, tiles - programs, programs)),
                 "that stops one wave short: range(pid, tiles, programs) stops below tiles itself"),
                ([pid + i * programs for i in range(per)],
                 f"only {tiles} tiles, 0 to {tiles - 1}: program {pid} has {len(want)}, because the last wave is "
                 f"partial. Stop below tiles"),
                (list(range(pid, tiles + 1, programs)), f"tile numbers stop at tiles - 1 = {tiles - 1}"),
            ])


# -- the launch: a spy, and a watch between programs --------------------------------------------------------------


@dataclass
class Problem:
    """A case: the product, the SMs, the blocks, GROUP_M, and what the launcher is given."""

    m: int
    n: int
    k: int
    sms: int
    blocks: tuple[int, int, int]
    group_m: int
    note: str = ""
    transposed_a: bool = False
    give_out: bool = True
    places: dict = field(init=False, repr=False)  # (tile row, tile column) -> tile number, in GROUP_M order

    def __post_init__(self):
        self.places = {self.coords(t): t for t in range(self.tiles)}

    @property
    def tiles_m(self) -> int:
        return ref.cdiv(self.m, self.blocks[0])

    @property
    def tiles_n(self) -> int:
        return ref.cdiv(self.n, self.blocks[1])

    @property
    def tiles(self) -> int:
        return self.tiles_m * self.tiles_n

    @property
    def programs(self) -> int:
        return ref.persistent_grid(self.m, self.n, self.blocks[0], self.blocks[1], self.sms)

    def coords(self, tile: int, group_m: int | None = None) -> tuple[int, int]:
        """(tile row, tile column) of tile number `tile` in GROUP_M order."""
        return ref.grouped_tile(tile, self.tiles_m, self.tiles_n, self.group_m if group_m is None else group_m)

    def own(self, pid: int) -> list[int]:
        return ref.tiles_of_program(pid, self.programs, self.tiles)

    def region(self, place: tuple[int, int]) -> tuple[slice, slice]:
        bm, bn, _ = self.blocks
        return slice(place[0] * bm, min(place[0] * bm + bm, self.m)), slice(place[1] * bn,
                                                                             min(place[1] * bn + bn, self.n))

    def place_of(self, row: int, col: int) -> tuple[int, int]:
        return row // self.blocks[0], col // self.blocks[1]

    def describe(self, tile: int) -> str:
        row, col = self.coords(tile)
        return f"tile {tile} (at tile row {row}, column {col})"

    def label(self) -> str:
        bm, bn, bk = self.blocks
        waves = ref.cdiv(self.tiles, self.programs)
        return (f"A {self.m}x{self.k} @ B {self.k}x{self.n} in {bm}x{bn} tiles (BLOCK_K={bk}), GROUP_M="
                f"{self.group_m}, sms={self.sms}: {self.tiles} tiles on {self.programs} program(s), up to {waves} "
                f"each{self.note}")


def _places_written(p: Problem, written: torch.Tensor) -> set[tuple[int, int]]:
    """The tiles with at least one written element, as (tile row, tile column)."""
    bm, bn, _ = p.blocks
    padded = torch.zeros(p.tiles_m * bm, p.tiles_n * bn, dtype=torch.bool)
    padded[:p.m, :p.n] = written
    any_written = padded.view(p.tiles_m, bm, p.tiles_n, bn).any(dim=3).any(dim=1)
    return {(int(r), int(c)) for r, c in any_written.nonzero().tolist()}


@dataclass
class Launch:
    grid: tuple[int, ...]
    args: dict
    problem: str | None = None  # the first thing the watch saw go wrong, between programs
    wrote: dict = field(default_factory=dict)  # program -> the tiles (numbers) it wrote, on the interpreter


class PersistentSpy(ts.OneLaunchSpy):
    """Stands in for the learner's persistent_matmul_kernel: checks the launch before it runs, then runs it with a
    watch between programs (on the interpreter)."""

    record_type = Launch

    def __init__(self, kernel, problem: Problem, out: GuardedOutput | None):
        super().__init__(kernel)
        self.problem = problem
        self.out = out

    def twice(self, count: int) -> str:
        return (f"launch_persistent launched persistent_matmul_kernel {count} times: one launch of min(tiles, sms) "
                "programs does every tile")

    def _before(self, launch: Launch) -> None:
        p = self.problem
        grid = launch.grid + (1,) * (3 - len(launch.grid))
        if grid != (p.programs, 1, 1):
            raise CheckFailure(self._grid_message(launch.grid))
        bm, bn, bk = p.blocks
        blocks = tuple(ts.constant(launch.args.get(name)) for name in ("BLOCK_M", "BLOCK_N", "BLOCK_K"))
        if blocks != (bm, bn, bk):
            raise CheckFailure(f"launched with BLOCK_M={blocks[0]}, BLOCK_N={blocks[1]}, BLOCK_K={blocks[2]}: pass "
                               f"on the block_m={bm}, block_n={bn}, block_k={bk} given to launch_persistent")
        group_m = ts.constant(launch.args.get("GROUP_M"))
        if group_m != p.group_m:
            raise CheckFailure(f"launched with GROUP_M={group_m} for group_m={p.group_m}: pass GROUP_M=group_m")
        if self.out is not None:
            c = launch.args.get("c_ptr")
            if not isinstance(c, torch.Tensor) or c.data_ptr() != self.out.view.data_ptr():
                raise CheckFailure("the kernel's c_ptr is not out: when out is given, the kernel writes into out "
                                   "itself (pass out, and out.stride(0), out.stride(1))")
            written = ~self.out.unwritten_mask()
            if bool(written.any()):
                row, col = (int(i) for i in written.nonzero()[0])
                raise CheckFailure(f"out was written before persistent_matmul_kernel ran (out[{row},{col}] holds "
                                   f"{fmt_value(float(self.out.view[row, col]))}): the kernel stores every tile "
                                   "of C whole, so nothing needs clearing first")

    def _grid_message(self, grid) -> str:
        p = self.problem
        want = f"(min(tiles, sms),) = (min({p.tiles}, {p.sms}),) = ({p.programs},)"
        if len(grid) >= 2 and grid[:2] == (p.tiles_m, p.tiles_n):
            return (f"launched a grid of {grid}, one program per tile as in exercise 12. A persistent launch is "
                    f"1-D, {want}, and each program loops over its tiles")
        count = grid[0]
        if any(g != 1 for g in grid[1:]):
            return f"launched a grid of {grid}: a persistent grid is 1-D, {want}"
        if count == p.tiles and p.tiles > p.sms:
            return (f"launched a grid of {grid}: one program per tile, {p.tiles} programs for sms={p.sms}. That is "
                    f"exercise 12's launch: the GPU then starts each program from scratch as an SM frees up. A "
                    f"persistent launch is {want}: program pid computes tiles pid, pid + {p.programs}, ... in a "
                    "loop")
        if count == min(p.tiles, H200_SMS) and p.sms != H200_SMS:
            return (f"launched a grid of {grid} for sms={p.sms}: {H200_SMS} is the H200's SM count, but "
                    f"launch_persistent is told how many SMs to fill: the grid is {want}, with the sms it is given")
        if count > p.tiles:
            return (f"launched {count} programs for {p.tiles} tile(s): programs {p.tiles} to {count - 1} would find "
                    f"their list of tiles empty. The grid is {want}")
        if count > p.sms:
            return (f"launched {count} programs for sms={p.sms}: a program past the SMs would wait until another "
                    f"has finished its whole list. The grid is {want}")
        return f"launched {count} program(s), leaving SMs idle: the grid is {want}"

    def _run(self, launch: Launch, grid, args, kwargs):
        if self.out is None or not ts.can_order_programs():
            return self.kernel[grid](*args, **kwargs)
        watch = Watch(self.problem, self.out, launch)
        try:
            with programs_in_order(None, watch.after) as finish:
                result = self.kernel[grid](*args, **kwargs)
                finish()
        except Exception:  # the interpreter wraps what the watch raises to stop it (Stop) in its own error
            if launch.problem is None:
                raise
            return None  # the check reports launch.problem as soon as launch_persistent returns
        watch.put_back()
        return result


class Stop(Exception):
    """Raised by the watch to end the launch early: it has seen what the check will report."""


class Watch:
    """Between programs: takes what the program just wrote, sets C back to its marked NaNs (so the next program's
    writes show even where they repeat a value), and judges the tiles the program wrote. put_back() writes
    every element's last value into C again, as the kernel left it."""

    def __init__(self, problem: Problem, out: GuardedOutput, launch: Launch):
        self.p = problem
        self.out = out
        self.launch = launch
        self.values = out.written()
        self.writer: dict[tuple[int, int], int] = {}  # tile place -> the first program that wrote it
        self.strays = 0

    def after(self, program) -> None:
        pid = int(program[0])
        written = ~self.out.unwritten_mask()
        places = _places_written(self.p, written)
        if places:
            self.values[written] = self.out.view.detach().cpu()[written]
            self.out.view.view(torch.int32).fill_(POISON_BITS)
        numbers = sorted(self.p.places[place] for place in places)
        self.launch.wrote[pid] = numbers
        if self.launch.problem is None:
            self.launch.problem = self._strays(pid) or self._judge(pid, places, numbers)
        for place in places:
            self.writer.setdefault(place, pid)
        if self.launch.problem is not None:
            raise Stop(self.launch.problem)  # the other programs would only take time

    def put_back(self) -> None:
        self.out.view.view(torch.int32).copy_(self.values.view(torch.int32))  # bit for bit: the marked NaNs too

    def _strays(self, pid: int) -> str | None:
        strays = self.out.stray_stores(limit=1000)
        if len(strays) <= self.strays:
            return None
        self.strays = len(strays)
        (row, col), value = strays[0]
        return (f"program {pid} stored {fmt_value(value)} at C[{row},{col}], outside the {self.p.m}x{self.p.n} "
                "output: mask every tile's store with rows < M and columns < N, and use C's own strides")

    def _judge(self, pid: int, places: set, numbers: list[int]) -> str | None:
        p = self.p
        own = p.own(pid)
        own_places = {p.coords(t) for t in own}
        foreign = sorted(places - own_places, key=lambda place: p.places[place])
        if not foreign:
            return None
        where = _places(sorted(places, key=lambda place: p.places[place]))
        own_where = _places(p.coords(t) for t in own)
        row_major = {p.coords(t, group_m=1) for t in own}
        unclipped = {place for place in (_full_group_place(p, t) for t in own)
                     if place[0] < p.tiles_m and place[1] < p.tiles_n}
        if p.tiles_m % p.group_m and places == unclipped:
            rows = p.tiles_m % p.group_m
            return (f"program {pid} wrote {p.describe(p.places[foreign[0]])}, which is program "
                    f"{p.places[foreign[0]] % p.programs}'s: C has {p.tiles_m} tile rows, so the last group of "
                    f"GROUP_M={p.group_m} has only {rows}. Its tiles walk down {rows} row(s), not {p.group_m}: "
                    "rows_here = min(GROUP_M, tiles_m - first_m), as in grouping.py's grouped_tile (workshop I3)")
        if p.group_m > 1 and places == row_major:
            return (f"program {pid} wrote the tiles at (tile row, column) {where}: its tiles {_tiles(own)} placed "
                    f"in row-major order. In GROUP_M={p.group_m} order (workshop I3: your grouping.py's "
                    f"grouped_tile) they are at {own_where}. C still comes out right, since every tile is written "
                    "once, but the programs that run together no longer share a band of GROUP_M tile rows: go down "
                    "the group's rows first, pid_m = first_m + (tile % per_group) % rows_here")
        if set(numbers) >= set(range(pid, p.tiles)) and len(numbers) > len(own):
            return (f"program {pid} wrote tiles {_tiles(numbers)}: every tile from {pid} on, so programs redo each "
                    f"other's tiles. Its own are {_tiles(own)}, one wave of {p.programs} apart: step the tile loop "
                    "by the number of programs, range(pid, tiles, tl.num_programs(0))")
        tile = p.places[foreign[0]]
        owner = tile % p.programs
        again = ""
        if foreign[0] in self.writer:
            again = f", and program {self.writer[foreign[0]]} had already written it: a tile written twice"
        return (f"program {pid} wrote {p.describe(tile)}, which is program {owner}'s{again}. Program {pid}'s tiles "
                f"are {_tiles(own)} (pid, pid + programs, ... below tiles), at (tile row, column) {own_where} in "
                f"GROUP_M order; it wrote {where}")


def _full_group_place(p: Problem, tile: int) -> tuple[int, int]:
    """Where GROUP_M order puts a tile if every group, the last too, had GROUP_M tile rows."""
    per_group = p.group_m * p.tiles_n
    first_m = (tile // per_group) * p.group_m
    return first_m + (tile % per_group) % p.group_m, (tile % per_group) // p.group_m


# -- after the launch ---------------------------------------------------------------------------------------------


def _inputs(gen, p: Problem):
    a = torch.randn(p.m, p.k, generator=gen).to(torch.float16).to(ts.device())
    b = torch.randn(p.k, p.n, generator=gen).to(torch.float16).to(ts.device())
    pad = max(p.blocks)  # NaN all around: an unmasked load past an edge brings a NaN in
    if p.transposed_a:  # A as a transposed view of a K x M buffer: strides (1, M + pad), not (K, 1)
        return padded_input(a.t().contiguous(), pad=pad).t(), padded_input(b, pad=pad)
    return padded_input(a, pad=pad), padded_input(b, pad=pad)


def _tolerance(k: int) -> tuple[float, float]:
    return 1e-3, 1e-3 * math.sqrt(max(k, 1))  # exercise 12's: float16 inputs, a float32 accumulator


def _close(got: torch.Tensor, want: torch.Tensor, k: int) -> bool:
    rtol, atol = _tolerance(k)
    return ts.first_difference(got, want, rtol, atol) is None


def _check_unwritten(p: Problem, out: GuardedOutput) -> None:
    unwritten = out.unwritten_mask()
    if not bool(unwritten.any()):
        return
    row, col = (int(i) for i in unwritten.nonzero()[0])
    tile = p.places[p.place_of(row, col)]
    written = _places_written(p, ~unwritten)
    missing = sorted(t for t in range(p.tiles) if p.coords(t) not in written)
    message = f"C[{row},{col}] never written: it is in {p.describe(tile)}, program {tile % p.programs}'s"
    if tile not in missing:
        raise CheckFailure(f"{message}, and other elements of that tile were written: store the whole tile, "
                           "masked with rows < M and columns < N only")
    whole = (p.tiles // p.programs) * p.programs
    if whole < p.tiles and missing == list(range(whole, p.tiles)):
        raise CheckFailure(
            f"{message}. Tiles {_tiles(missing)} were never written: {p.tiles} tiles on {p.programs} programs are "
            f"{p.tiles // p.programs} whole wave(s) and {p.tiles - whole} tile(s) more, and no program took the "
            f"last, partial wave. A loop of tiles // programs = {p.tiles // p.programs} steps rounds it away; loop "
            f"over range(pid, tiles, programs), and {_first_programs(p.tiles - whole)} take one tile more")
    lasts = sorted(p.own(pid)[-1] for pid in range(p.programs))
    if missing == lasts:
        raise CheckFailure(f"{message}. The last tile of every program's list, {_tiles(lasts)}, was never "
                           "written: the tile loop stops one wave short. range(pid, tiles, programs) stops below "
                           "tiles itself")
    raise CheckFailure(f"{message}. Tiles {_tiles(missing)} were never written: program pid computes tiles pid, "
                       "pid + programs, ... up to tiles - 1, and stores each one whole")


def _padded_product(p: Problem, a64: torch.Tensor, b64: torch.Tensor) -> torch.Tensor:
    bm, bn, _ = p.blocks
    a = torch.zeros(p.tiles_m * bm, p.k, dtype=torch.float64)
    b = torch.zeros(p.k, p.tiles_n * bn, dtype=torch.float64)
    a[:p.m] = a64
    b[:, :p.n] = b64
    return a @ b  # every tile's product, zero past C's edges, as the masked loads make it


def _tile(p: Problem, full: torch.Tensor, tile: int) -> torch.Tensor:
    bm, bn, _ = p.blocks
    row, col = p.coords(tile)
    return full[row * bm:row * bm + bm, col * bn:col * bn + bn]


def _carried(p: Problem, c: torch.Tensor, padded: torch.Tensor) -> bool:
    """Whether every tile holds its own product plus the products of its program's earlier tiles."""
    for pid in range(p.programs):
        total = torch.zeros(p.blocks[0], p.blocks[1], dtype=torch.float64)
        for step, tile in enumerate(p.own(pid)):
            total = total + _tile(p, padded, tile)
            rows, cols = p.region(p.coords(tile))
            got = c[rows, cols].double()
            want = total[:got.shape[0], :got.shape[1]]
            if not torch.allclose(got, want, rtol=1e-2, atol=1e-2 * math.sqrt(p.k * (step + 1))):
                return False
    return True


def _check_values(p: Problem, c: torch.Tensor, a64: torch.Tensor, b64: torch.Tensor) -> None:
    want = a64 @ b64
    rtol, atol = _tolerance(p.k)
    diff = ts.first_difference(c, want, rtol, atol)
    if diff is None:
        return
    (row, col), got_value, want_value = diff
    tile = p.places[p.place_of(row, col)]
    pid, step = tile % p.programs, tile // p.programs
    where = f"{p.describe(tile)}, number {step + 1} in program {pid}'s list {_tiles(p.own(pid))}"
    if math.isnan(got_value):
        ts.fail_at("C", (row, col), got_value, want_value,
                   f"{where}. A NaN came in from outside A or B (the memory around them holds NaN): mask the loads "
                   "with rows < M, k < K and columns < N, other=0.0")
    last = (ref.cdiv(p.k, p.blocks[2]) - 1) * p.blocks[2]
    if p.k > p.blocks[2] and _close(c, a64[:, last:] @ b64[last:, :], p.k):
        ts.fail_at("C", (row, col), got_value, want_value,
                   f"{where}. C holds only the last K step's product, A[:, {last}:] @ B[{last}:, :]: is the "
                   "accumulator reset inside the K loop? It is made once per tile, before the K loop")
    wrong = [t for t in range(p.tiles)
             if ts.first_difference(c[p.region(p.coords(t))], want[p.region(p.coords(t))], rtol, atol) is not None]
    if wrong and all(t >= p.programs for t in wrong):
        padded = _padded_product(p, a64, b64)
        if _carried(p, c, padded):
            ts.fail_at("C", (row, col), got_value, want_value,
                       f"{where}. Every program's first tile is right, and each later tile holds its own product "
                       "plus those of the program's tiles before it: the accumulator carried over from tile to tile. "
                       "Make it fresh for every tile, acc = tl.zeros(...) inside the tile loop")
        ts.fail_at("C", (row, col), got_value, want_value,
                   f"{where}. Every program's first tile is right, but later ones are not: is everything that "
                   "belongs to a tile (its pid_m and pid_n, rows, columns, and a fresh accumulator) made inside the "
                   "tile loop?")
    ts.fail_at("C", (row, col), got_value, want_value, where)


def _one_call(module, gen, p: Problem) -> None:
    a, b = _inputs(gen, p)
    bm, bn, bk = p.blocks
    out = GuardedOutput((p.m, p.n), torch.float32, ts.device(), pad=max(bm, bn)) if p.give_out else None
    spy = PersistentSpy(module.persistent_matmul_kernel, p, out)
    with ts.standing_in(module, "persistent_matmul_kernel", spy):
        result = ts.call_kernel(module.launch_persistent, a, b, sms=p.sms,
                                out=out.view if out is not None else None,
                                block_m=bm, block_n=bn, block_k=bk, group_m=p.group_m)
    ts.the_launch(spy, "launch_persistent", "persistent_matmul_kernel")
    ts.check_returned_c(result, out, (p.m, p.n), "launch_persistent")
    if out is not None:
        strays = out.stray_stores()
        if strays:
            (row, col), value = strays[0]
            raise CheckFailure(f"stray store of {fmt_value(value)} at C[{row},{col}], outside the {p.m}x{p.n} "
                               "output: mask every tile's store with rows < M and columns < N")
        _check_unwritten(p, out)
        c = out.written()
    else:
        c = result.detach().cpu()
    _check_values(p, c, a.detach().cpu().double(), b.detach().cpu().double())


def _random_problem(trial) -> Problem:
    rng = trial.rng
    return Problem(rng.randint(1, 100), rng.randint(1, 100), rng.randint(1, 80), rng.choice([2, 3, 4, 5, 8]),
                   (rng.choice([16, 32]), rng.choice([16, 32]), rng.choice([16, 32])), rng.choice([1, 2, 3, 8]),
                   " (random)", transposed_a=rng.random() < 0.5)


def check_launch_persistent(module, trial) -> None:
    problems = [
        Problem(100, 320, 20, 6, (16, 16, 16), 4, ", more tiles than an H200 has SMs"),
        Problem(65, 127, 100, 5, (32, 32, 16), 2, ", a last group of one tile row"),
        Problem(127, 65, 33, 4, (32, 16, 16), 3, ", tiles a multiple of the programs, A transposed in memory",
                transposed_a=True),
        Problem(7, 255, 40, 3, (16, 32, 16), 8, ", one tile row"),
        Problem(255, 7, 30, 4, (32, 16, 16), 2, ", one tile column"),
        Problem(40, 50, 70, 8, (16, 16, 32), 1, ", GROUP_M=1: row-major"),
        Problem(33, 40, 50, 8, (32, 32, 16), 2, ", fewer tiles than SMs: one tile per program"),
        Problem(1, 1, 1, 4, (16, 16, 16), 8, ", one element"),
        _random_problem(trial),
        Problem(20, 30, 40, 3, (16, 16, 16), 2, ", no out given: launch_persistent makes C", give_out=False),
    ]
    gen = ts.generator(trial)
    for p in problems:
        with trial.case(p.label()):
            _one_call(module, gen, p)


PARTS = [
    Part("persistent_grid", check_persistent_grid),
    Part("tiles_of_program", check_tiles_of_program),
    Part("launch_persistent", check_launch_persistent, needs=("persistent_matmul_kernel", "launch_persistent")),
]
