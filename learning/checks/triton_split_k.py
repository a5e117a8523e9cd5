"""Checks for exercise 19 (workshop I8): split-K. K is cut into slices, each program multiplies one slice of one
tile into a plane of a float32 workspace, and the last slice of a tile to arrive adds the planes up, in slice order.

The launch parts stand a spy in for `splitk_kernel` (as exercise 18's checks do; the launcher looks the kernel up in
its module when it runs). Before the kernel runs, the spy checks the grid, the block sizes, SPLIT_K, that out is
handed over untouched, the workspace and the counters, and fills the workspace with marked NaNs: a plane nobody
wrote, or a plane read before its slice wrote it, shows.

On Triton's interpreter the programs run one after another, in the grid's order: tile 0's slices 0, 1, ...,
SPLIT_K - 1, then tile 1's. On a GPU they run at the same time and arrive in any order. So on the interpreter the spy
also chooses the order, by renumbering the programs the interpreter starts (`programs_in_order` in
learning/checking/triton_support.py wraps the interpreter's `set_grid_idx`), and it looks at C and at the counters
between one program and the next. A tile of C written before all of its slices have arrived is then caught, even
when a later program overwrites it with the right sum. Part `launch_split_k` keeps the interpreter's order; part
`any_arrival_order` interleaves the tiles' programs and turns each tile's slices around (tile 0's arrive last to
first), as a GPU may. On a GPU the same cases run in whatever order the GPU picks, and only what the launch leaves
behind is checked; the runner then checks once more on the interpreter (`with_the_watch` in
learning/checking/runner.py).

What no run on the interpreter can show is memory ordering: each store is seen by the next program at once, so a
missing tl.debug_barrier(), sem="relaxed" where "acq_rel" is needed, or a sum that reads a stale cached line all pass
here, and fail on a GPU only now and then.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from learning.checking import reference as ref
from learning.checking import triton_support as ts
from learning.checking.compare import check_value
from learning.checking.tensor_guards import GUARD, GuardedOutput, fmt_value, padded_input
from learning.checking.trial import CheckFailure, Part
from learning.checking.triton_support import can_order_programs, programs_in_order

SPARE_COUNTERS = 4  # counters past the last tile: they must stay 0
# The workspace's marked NaN, unlike out's (POISON_BITS): a sum of planes nobody wrote carries this NaN's bits
# into C, and C then shows as written (too early), not as never written.
PLANE_POISON_BITS = 0x7FC0BEEF


# -- part 1: the slices -------------------------------------------------------------------------------------------


def _as_pairs(got):
    if isinstance(got, (list, tuple)):
        return [tuple(pair) if isinstance(pair, (list, tuple)) else pair for pair in got]
    return got


def _clamped(per: int, k: int, split_k: int) -> list[tuple[int, int]]:
    return [(min(s * per, k), min((s + 1) * per, k)) for s in range(split_k)]


def check_k_slices(module, trial) -> None:
    cases = [(100, 16, 4), (4096, 128, 4), (1000, 128, 4), (40, 16, 4), (20, 16, 5), (33, 16, 3), (64, 32, 2),
             (1, 16, 1), (1, 16, 3), (16, 16, 2), (17, 16, 2), (4096, 64, 16), (129, 64, 8), (50, 16, 1)]
    for _ in range(8):
        cases.append((trial.rng.randint(1, 5000), trial.rng.choice([16, 32, 64, 128]), trial.rng.randint(1, 12)))
    for k, block_k, split_k in cases:
        call = f"k_slices({k}, {block_k}, {split_k})"
        with trial.case(call):
            want = ref.k_slices(k, block_k, split_k)
            steps = ref.cdiv(k, block_k)
            per = ref.cdiv(steps, split_k)
            floor = (steps // split_k) * block_k
            check_value(_as_pairs(module.k_slices(k, block_k, split_k)), want, call, known_mistakes=[
                (_clamped(floor, k, split_k),
                 f"{steps} step(s) of {block_k} in {split_k} slices is ceil({steps} / {split_k}) = {per} step(s) per "
                 f"slice; rounded down, K's last {k - min(split_k * floor, k)} belong to no slice"),
                (_clamped(ref.cdiv(k, split_k), k, split_k),
                 f"a slice is whole BLOCK_K steps, not K / split_k: ceil(ceil(k / block_k) / split_k) * block_k = "
                 f"{per * block_k} per slice, so that only K's end cuts a step short"),
                ([(s * per * block_k, (s + 1) * per * block_k) for s in range(split_k)],
                 f"clamp both ends to k: min(start, k), min(stop, k). No slice reaches past K={k}, and a slice "
                 f"that starts past it is empty, ({k}, {k})"),
                ([(s * per * block_k, min((s + 1) * per * block_k, k)) for s in range(split_k)],
                 f"an empty slice is ({k}, {k}): clamp its start to k as well as its stop"),
                ([(min(s * per, steps), min((s + 1) * per, steps)) for s in range(split_k)],
                 "return positions along K, not step numbers: multiply the steps by block_k"),
                ([(s * floor, k if s == split_k - 1 else (s + 1) * floor) for s in range(split_k)],
                 f"every slice is ceil({steps} / {split_k}) = {per} step(s), the last ones shorter or empty: not "
                 "the rest piled onto the last slice"),
            ])


# -- the launch: a spy, and the order the programs run in ---------------------------------------------------------


@dataclass
class Problem:
    """A case: the product, the split, the blocks, and what the launcher is given."""

    m: int
    n: int
    k: int
    split_k: int
    blocks: tuple[int, int, int]
    note: str = ""
    transposed_a: bool = False
    give_out: bool = True
    give_counters: bool = False
    reuse: bool = False  # a second call with the same counters

    @property
    def tiles_n(self) -> int:
        return ref.cdiv(self.n, self.blocks[1])

    @property
    def tiles(self) -> int:
        return ref.cdiv(self.m, self.blocks[0]) * self.tiles_n

    def region(self, tile: int) -> tuple[int, int, int, int]:
        """First and last row, first and last column of C in tile `tile` (row-major tiles)."""
        bm, bn, _ = self.blocks
        row, col = divmod(tile, self.tiles_n)
        return row * bm, min(row * bm + bm, self.m) - 1, col * bn, min(col * bn + bn, self.n) - 1

    def tile_of(self, row: int, col: int) -> int:
        return (row // self.blocks[0]) * self.tiles_n + col // self.blocks[1]

    def label(self, interleaved: bool) -> str:
        bm, bn, bk = self.blocks
        text = (f"A {self.m}x{self.k} @ B {self.k}x{self.n}, split_k={self.split_k}, BLOCK_M={bm}, BLOCK_N={bn}, "
                f"BLOCK_K={bk}{self.note}")
        if interleaved and self.split_k > 1 and can_order_programs():
            order = ", ".join(str(s) for s in arrival_orders(1, self.split_k)[0])
            text += f"; the tiles' programs interleaved, tile 0's slices arriving {order}"
        return text


def arrival_orders(tiles: int, split_k: int) -> list[list[int]]:
    """Tile t's slices arrive t-1, t-2, ... (mod split_k): tile 0's last to first, and slice t % split_k last."""
    return [[(t - 1 - j) % split_k for j in range(split_k)] for t in range(tiles)]


def interleaved(orders: list[list[int]]) -> list[tuple[int, int]]:
    """Round j runs the j-th arrival of every tile, so no tile's slices run back to back."""
    return [(t, order[j]) for j in range(len(orders[0])) for t, order in enumerate(orders)]


@dataclass
class Launch:
    grid: tuple[int, ...]
    args: dict
    planes: torch.Tensor | None = None
    workspace: torch.Tensor | None = None  # the guarded buffer around the planes
    workspace_pad: int = 0
    counters: torch.Tensor | None = None
    orders: list[list[int]] | None = None  # each tile's slices in the order they ran (None on a GPU)
    problem: str | None = None  # the first thing the watch saw go wrong, between programs


class SplitSpy(ts.OneLaunchSpy):
    """Stands in for the learner's splitk_kernel: checks each launch before it runs, poisons the workspace, runs the
    programs in the order the part asks for, and watches C and the counters between programs."""

    record_type = Launch

    def __init__(self, kernel, problem: Problem, out: GuardedOutput | None, counters, interleave: bool):
        super().__init__(kernel)
        self.problem = problem
        self.out = out
        self.counters = counters
        self.interleave = interleave

    def twice(self, count: int) -> str:
        return (f"launch_split_k launched splitk_kernel {count} times: one launch on the grid (tiles, split_k) does "
                "every slice of every tile")

    # ---- before the kernel runs
    def _before(self, launch: Launch) -> None:
        p = self.problem
        bm, bn, bk = p.blocks
        grid = launch.grid + (1,) * (3 - len(launch.grid))
        want = (p.tiles, p.split_k)
        got_split = ts.constant(launch.args.get("SPLIT_K"))
        if grid[2] != 1 or grid[:2] != want:
            raise CheckFailure(self._grid_message(launch.grid, got_split))
        blocks = tuple(ts.constant(launch.args.get(name)) for name in ("BLOCK_M", "BLOCK_N", "BLOCK_K"))
        if blocks != (bm, bn, bk):
            raise CheckFailure(f"launched with BLOCK_M={blocks[0]}, BLOCK_N={blocks[1]}, BLOCK_K={blocks[2]}: pass "
                               f"on the block_m={bm}, block_n={bn}, block_k={bk} given to launch_split_k")
        if got_split != p.split_k:
            raise CheckFailure(f"launched with SPLIT_K={got_split} for split_k={p.split_k}: pass SPLIT_K=split_k")
        c = launch.args.get("c_ptr")
        if self.out is not None:
            if not isinstance(c, torch.Tensor) or c.data_ptr() != self.out.view.data_ptr():
                raise CheckFailure("the kernel's c_ptr is not out: when out is given, the kernel writes into out "
                                   "itself (pass out, and out.stride(0), out.stride(1))")
            written = ~self.out.unwritten_mask()
            if bool(written.any()):
                row, col = (int(i) for i in written.nonzero()[0])
                value = fmt_value(float(self.out.view[row, col]))
                raise CheckFailure(
                    f"out was written before splitk_kernel ran (out[{row},{col}] holds {value}): nothing needs "
                    "clearing, because the last slice to arrive stores the whole sum. Adding partial tiles into a "
                    "zeroed C (float atomics) adds them in the order they arrive, so with more than two slices C's "
                    "last bits change from run to run: hand each partial in through its workspace plane instead")
        self._planes(launch.args.get("ws_ptr"))
        launch.counters = self._counters(launch.args.get("counters_ptr"))

    def _grid_message(self, grid, got_split) -> str:
        p = self.problem
        want = f"(tiles, split_k) = ({p.tiles}, {p.split_k})"
        tiles_m = ref.cdiv(p.m, p.blocks[0])
        split = f" with SPLIT_K={got_split}" if got_split is not None else ""
        if grid in ((p.tiles,), (p.tiles, 1)) and p.split_k > 1:
            return (f"launched a grid of {grid}{split} for split_k={p.split_k}: one program per tile walks all of K "
                    f"alone, which is what split-K is there to avoid. The grid is {want}: program (tile, slice) "
                    "multiplies one slice of K for one tile, and SPLIT_K=split_k")
        if grid[:2] == (p.split_k, p.tiles):
            return f"launched a grid of {grid}: the tiles come first, then the slices: {want}"
        if grid[:2] == (tiles_m, p.tiles_n) or grid == (tiles_m, p.tiles_n, p.split_k):
            return (f"launched a grid of {grid}: the tiles are one axis, cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N) = "
                    f"{tiles_m} * {p.tiles_n} in row-major order, and the slices the other: {want}")
        return f"launched a grid of {grid}: the grid is {want}"

    def _planes(self, ws) -> None:
        p = self.problem
        size = p.split_k * p.m * p.n
        if not isinstance(ws, torch.Tensor) or ws.dtype != torch.float32 or not ws.is_contiguous() \
                or ws.numel() < size:
            what = (f"a {ws.dtype} tensor of shape {tuple(ws.shape)}" if isinstance(ws, torch.Tensor)
                    else type(ws).__name__)
            raise CheckFailure(f"the workspace (ws_ptr) is {what}: it is a contiguous float32 tensor of shape "
                               f"(split_k, M, N) = ({p.split_k}, {p.m}, {p.n}), one plane per slice")

    def _arguments(self, launch: Launch, args: list, kwargs: dict):
        """The kernel gets a workspace of the learner's shape, in the middle of a buffer of GUARD: a store outside
        the planes lands in the guard, where the check finds it, instead of in memory that belongs to something
        else. The planes start as marked NaNs."""
        p = self.problem
        ws = launch.args["ws_ptr"]
        pad = p.split_k * p.m * p.n + 256
        buffer = torch.full((pad + ws.numel() + pad,), GUARD, dtype=torch.float32, device=ws.device)
        substitute = buffer[pad:pad + ws.numel()].view(ws.shape)
        substitute.view(torch.int32).fill_(PLANE_POISON_BITS)  # a plane read before it was written shows
        launch.workspace, launch.workspace_pad = buffer, pad
        launch.planes = substitute.view(-1)[:p.split_k * p.m * p.n].view(p.split_k, p.m, p.n)
        position = self.kernel.arg_names.index("ws_ptr")
        if position < len(args):
            args[position] = substitute
        else:
            kwargs["ws_ptr"] = substitute
        return args, kwargs

    def _counters(self, counters) -> torch.Tensor:
        p = self.problem
        if self.counters is not None and (not isinstance(counters, torch.Tensor)
                                          or counters.data_ptr() != self.counters.data_ptr()):
            raise CheckFailure("the kernel's counters_ptr is not the counters tensor given to launch_split_k: use "
                               "the one given (a caller keeps it from launch to launch), and make one only when "
                               "counters is None")
        if not isinstance(counters, torch.Tensor) or counters.dtype != torch.int32 or counters.numel() < p.tiles:
            what = (f"a {counters.dtype} tensor of {counters.numel()} elements" if isinstance(counters, torch.Tensor)
                    else type(counters).__name__)
            raise CheckFailure(f"counters_ptr is {what}: the counters are int32, one per tile ({p.tiles} here): "
                               "torch.zeros(tiles, dtype=torch.int32)")
        flat = counters.view(-1)
        nonzero = (flat != 0).nonzero()
        if len(nonzero):
            index = int(nonzero[0])
            raise CheckFailure(f"counters[{index}] is {int(flat[index])} when the kernel starts: every count starts "
                               "at 0 (torch.zeros(tiles, dtype=torch.int32), not torch.empty)")
        return flat

    # ---- the run
    def _run(self, launch: Launch, grid, args, kwargs):
        p = self.problem
        if not can_order_programs():
            launch.orders, schedule = None, None  # a GPU's own order, which nobody can know
        elif self.interleave:
            launch.orders = arrival_orders(p.tiles, p.split_k)
            schedule = interleaved(launch.orders)
        else:
            launch.orders = [list(range(p.split_k)) for _ in range(p.tiles)]
            schedule = None  # the interpreter's own order
        watch = Watch(p, self.out, launch)
        with programs_in_order(schedule, watch.after) as finish:
            result = self.kernel[grid](*args, **kwargs)
            finish()
        return result


class Watch:
    """Between programs: no tile of C may be written before all of its slices have arrived. The first tile written
    too early is recorded, with which counters the program moved, and the check raises it after the launch."""

    def __init__(self, problem: Problem, out: GuardedOutput | None, launch: Launch):
        self.p = problem
        self.out = out
        self.launch = launch
        self.arrived = [0] * problem.tiles
        self.before = launch.counters[:problem.tiles].clone()

    def after(self, program) -> None:
        tile, k_slice = program
        self.arrived[tile] += 1
        counters = self.launch.counters[:self.p.tiles].clone()
        before, self.before = self.before, counters
        if self.launch.problem is not None or self.out is None:
            return
        written = self._written_tiles()
        early = [u for u in range(self.p.tiles) if written[u] and self.arrived[u] < self.p.split_k]
        if early:
            self.launch.problem = self._message(early[0], tile, k_slice, before, counters)

    def _written_tiles(self) -> list[bool]:
        bm, bn, _ = self.p.blocks
        written = ~self.out.unwritten_mask()
        tiles_m = ref.cdiv(self.p.m, bm)
        padded = torch.zeros(tiles_m * bm, self.p.tiles_n * bn, dtype=torch.bool)
        padded[:self.p.m, :self.p.n] = written
        return padded.view(tiles_m, bm, self.p.tiles_n, bn).any(dim=3).any(dim=1).flatten().tolist()

    def _message(self, tile, by_tile, by_slice, before, counters) -> str:
        p = self.p
        r0, r1, c0, c1 = p.region(tile)
        order = ", ".join(str(s) for s in self.launch.orders[tile])
        where = f"C's tile {tile} (rows {r0}-{r1}, columns {c0}-{c1})"
        if tile != by_tile:
            return (f"{where} was written by program (tile {by_tile}, slice {by_slice}): tile t is rows "
                    f"(t // cdiv(N, BLOCK_N)) * BLOCK_M ..., columns (t % cdiv(N, BLOCK_N)) * BLOCK_N ... (tiles in "
                    "row-major order), and only its own last slice to arrive stores it")
        message = (f"{where} was written by program (tile {tile}, slice {by_slice}) when {self.arrived[tile]} of its "
                   f"{p.split_k} slices had arrived (its slices arrive here in the order {order}): only the last to "
                   "arrive, the program whose tl.atomic_add returns SPLIT_K - 1, may sum the planes and store C, "
                   "whichever slice it is")
        if by_slice == p.split_k - 1 and self.arrived[tile] < p.split_k:
            message += (". Slice SPLIT_K - 1 holds the end of K, but on a GPU it may arrive first: only the "
                        "counter knows who is last")
        changed = (counters != before).nonzero().flatten().tolist()
        if not changed:
            message += (". This program's counters are back where they were: either it never counted (count each "
                        "arrival with tl.atomic_add(counters_ptr + tile, 1, sem=\"acq_rel\")), or it counted and "
                        "then set the counter back to 0 as if it were the last to arrive")
        elif changed != [tile]:
            message += (f". This program changed counters {changed}, not counters[{tile}]: each tile counts its own "
                        "slices, on counters_ptr + tile")
        return message


# -- after the launch ---------------------------------------------------------------------------------------------


def _inputs(gen, p: Problem):
    a = (torch.randn(p.m, p.k, generator=gen)).to(ts.device())
    b = (torch.randn(p.k, p.n, generator=gen)).to(ts.device())
    pad = max(p.blocks)  # NaN all around: an unmasked load past an edge brings a NaN in
    if p.transposed_a:  # A as a transposed view of a K x M buffer: strides (1, M + pad), not (K, 1)
        return padded_input(a.t().contiguous(), pad=pad).t(), padded_input(b, pad=pad)
    return padded_input(a, pad=pad), padded_input(b, pad=pad)


def _tolerance(k: int) -> tuple[float, float]:
    # float32 on the interpreter is far inside this; a GPU's tf32 tl.dot (the default for float32) is inside it too
    return 2e-3, 2e-3 * math.sqrt(max(k, 1))


def _close(got: torch.Tensor, want: torch.Tensor, k: int) -> bool:
    rtol, atol = _tolerance(k)
    return ts.first_difference(got, want, rtol, atol) is None


def _partial(a64, b64, lo, hi, m, n) -> torch.Tensor:
    if hi <= lo:
        return torch.zeros(m, n, dtype=torch.float64)
    return a64[:, lo:hi] @ b64[lo:hi, :]


def _check_planes(p: Problem, launch: Launch, a64, b64) -> None:
    buffer, pad = launch.workspace.detach().cpu(), launch.workspace_pad
    outside = buffer != GUARD
    outside[pad:len(buffer) - pad] = False
    if bool(outside.any()):
        index = int(outside.nonzero()[0])
        offset = index - pad
        where = f"{-offset} before plane 0" if offset < 0 else f"ws_ptr + {offset}, past the last plane"
        raise CheckFailure(
            f"stray store of {fmt_value(float(buffer[index]))} into the workspace at {where}: element (row, col) of "
            f"plane s is at ws_ptr + s * M * N + row * N + col. The planes' rows are N = {p.n} apart, whatever C's "
            "strides; mask the store like C's")
    planes = launch.planes.detach().cpu()
    slices = ref.k_slices(p.k, p.blocks[2], p.split_k)
    for s, (lo, hi) in enumerate(slices):
        plane = planes[s]
        name = f"plane {s} of the workspace"
        unwritten = plane.view(torch.int32) == PLANE_POISON_BITS
        if bool(unwritten.any()):
            row, col = (int(i) for i in unwritten.nonzero()[0])
            if lo == hi:
                raise CheckFailure(
                    f"{name} was never written (at [{row},{col}]): slice {s} is empty (k_slices gives ({lo}, {hi}): "
                    f"K={p.k} ends before it), but it still stores its partial tile, all zeros, and counts itself. "
                    "Otherwise the last program to arrive sums a plane nobody wrote: whatever the workspace held")
            raise CheckFailure(
                f"{name} was never written at [{row},{col}] (tile {p.tile_of(row, col)}): every program stores its "
                "whole partial tile into plane tl.program_id(1), at ws_ptr + k_slice * M * N + rows * N + cols, "
                "masked like C")
        want = _partial(a64, b64, lo, hi, p.m, p.n)
        rtol, atol = _tolerance(p.k)
        diff = ts.first_difference(plane, want, rtol, atol)
        if diff is None:
            continue
        index, got_value, want_value = diff
        what = f"A[:, {lo}:{hi}] @ B[{lo}:{hi}, :], the product over k_slices(K, BLOCK_K, SPLIT_K)[{s}]"
        ts.fail_at(f"plane {s}", index, got_value, want_value, f"{what}. " + _plane_diagnosis(p, planes, a64, b64))


def _plane_diagnosis(p: Problem, planes, a64, b64) -> str:
    if bool(torch.isnan(planes).any()):
        return ("A NaN came in from outside A or B (the memory around them holds NaN): mask the loads with rows < M, "
                "k < K and columns < N, other=0.0")
    bk = p.blocks[2]
    steps = ref.cdiv(p.k, bk)

    def every_plane_is(slices) -> bool:
        return all(_close(planes[s], _partial(a64, b64, lo, hi, p.m, p.n), p.k) for s, (lo, hi) in enumerate(slices))

    if every_plane_is([(0, p.k)] * p.split_k):
        return ("Every plane holds the whole product A @ B: program (tile, slice) multiplies only its own slice of K, "
                "from k_slice * per_slice, per_slice = ceil(ceil(K / BLOCK_K) / SPLIT_K) * BLOCK_K")
    floor = (steps // p.split_k) * bk
    if floor != ref.cdiv(steps, p.split_k) * bk and every_plane_is(_clamped(floor, p.k, p.split_k)):
        kept = min(p.split_k * floor, p.k)
        return (f"Each slice got floor({steps} / {p.split_k}) step(s) of {bk}: round up (tl.cdiv), or K's last "
                f"{p.k - kept} belong to no slice")
    elements = ref.cdiv(p.k, p.split_k)
    if every_plane_is(_clamped(elements, p.k, p.split_k)):
        return (f"Each slice got ceil(K / SPLIT_K) = {elements} of K: a slice is whole BLOCK_K steps, "
                f"ceil(ceil(K / BLOCK_K) / SPLIT_K) * BLOCK_K = {ref.cdiv(steps, p.split_k) * bk} of K")
    return "Does each slice start at k_slice * per_slice and stop at min(its start + per_slice, K)?"


def _check_no_strays(p: Problem, out: GuardedOutput) -> None:
    strays = out.stray_stores()
    if strays:
        (row, col), value = strays[0]
        raise CheckFailure(f"stray store of {fmt_value(value)} at C[{row},{col}], outside the {p.m}x{p.n} output: is "
                           "C's store masked on both edges, rows < M and columns < N, with out's own strides?")


def _check_c_written(p: Problem, out: GuardedOutput, launch: Launch) -> None:
    missing = out.unwritten(limit=1)
    if missing:
        row, col = missing[0]
        tile = p.tile_of(row, col)
        count = int(launch.counters[tile])
        where = f"C[{row},{col}] never written (tile {tile})"
        if count == p.split_k:
            raise CheckFailure(f"{where}, and counters[{tile}] is {count}: all {p.split_k} slices counted themselves, "
                               "but none summed. tl.atomic_add returns the count from before its own +1, so the last "
                               "to arrive sees SPLIT_K - 1")
        raise CheckFailure(f"{where}: the program whose tl.atomic_add returns SPLIT_K - 1 sums the tile's planes and "
                           "stores its tile of C, masked on M and N")


def _check_c(p: Problem, c: torch.Tensor, planes, a64, b64) -> None:
    want = a64 @ b64
    rtol, atol = _tolerance(p.k)
    diff = ts.first_difference(c, want, rtol, atol)
    if diff is None:
        return
    index, got_value, want_value = diff
    why = ""
    if math.isnan(got_value):
        why = ("a NaN reached C although every plane is right: does the sum read the planes with the mask of C's "
               "tile (other=0.0)?")
    else:
        for s in range(p.split_k):
            if p.split_k > 1 and _close(c, planes[s].double(), p.k):
                why = f"C holds plane {s} alone: add all SPLIT_K planes, 0 to SPLIT_K - 1"
                break
        else:
            if p.split_k > 1 and _close(c, planes[:-1].double().sum(dim=0), p.k):
                why = "C misses the last plane: range(SPLIT_K), not range(SPLIT_K - 1)"
    ts.fail_at("C", index, got_value, want_value, why)


def _in_slice_order(planes: torch.Tensor) -> torch.Tensor:
    total = torch.zeros(planes.shape[1:], dtype=torch.float32)
    for plane in planes:  # the kernel's own sum: float32, one plane after the other
        total = total + plane
    return total


def _check_slice_order(p: Problem, c: torch.Tensor, planes: torch.Tensor, orders) -> None:
    want = _in_slice_order(planes)
    differ = c != want
    if not bool(differ.any()):
        return
    row, col = (int(i) for i in differ.nonzero()[0])
    tile = p.tile_of(row, col)
    region = (slice(None), *_region_slice(p, tile))
    tile_c = c[region[1:]]
    message = (f"C[{row},{col}] is {float(c[row, col]):.9g}, but plane 0 + plane 1 + ... + plane {p.split_k - 1}, "
               f"added in float32 in that order, is {float(want[row, col]):.9g}")
    for last in range(p.split_k):
        own_first = _in_slice_order(planes[[last] + [s for s in range(p.split_k) if s != last]][region])
        if torch.equal(tile_c, own_first):
            raise CheckFailure(
                f"{message}: tile {tile}'s sum starts with the last arriver's own partial (slice {last}), then adds "
                "the other planes. Add all SPLIT_K planes in slice order, 0, 1, ..., SPLIT_K - 1, loading its own "
                "too, so C's bits do not depend on which slice happens to arrive last")
    if orders is not None:
        shown = ", ".join(str(s) for s in orders[tile])
        if torch.equal(tile_c, _in_slice_order(planes[orders[tile]][region])):
            raise CheckFailure(
                f"{message}: tile {tile}'s planes were added in the order its slices arrived ({shown}). Add them in "
                "slice order, 0, 1, ..., SPLIT_K - 1, so C's bits do not depend on the order of arrival")
        message += f" (tile {tile}'s slices arrived {shown})"
    raise CheckFailure(f"{message}: the last to arrive adds the planes into a float32 zero tile in slice order, 0, "
                       "1, ..., SPLIT_K - 1. Float addition rounds, so another order gives other bits")


def _region_slice(p: Problem, tile: int):
    r0, r1, c0, c1 = p.region(tile)
    return slice(r0, r1 + 1), slice(c0, c1 + 1)


def _check_counters(p: Problem, launch: Launch, counters_given) -> None:
    flat = launch.counters.detach().cpu()
    bad = (flat[:p.tiles] != 0).nonzero().flatten().tolist()
    if bad:
        tile = bad[0]
        raise CheckFailure(f"counters[{tile}] is {int(flat[tile])} after the call, expected 0: the last to arrive "
                           "sets its tile's counter back to 0 (tl.atomic_xchg(counter, 0)), so the next launch can "
                           "count from 0 with the same counters, without clearing them")
    if counters_given is not None:
        spare = (flat[p.tiles:] != 0).nonzero().flatten().tolist()
        if spare:
            raise CheckFailure(f"counters[{p.tiles + spare[0]}] is {int(flat[p.tiles + spare[0]])} after the call, "
                               f"but there are only {p.tiles} tiles: tile t counts on counters_ptr + t")


def _one_call(module, gen, p: Problem, interleave: bool, counters=None, what: str = ""):
    a, b = _inputs(gen, p)
    bm, bn, bk = p.blocks
    out = GuardedOutput((p.m, p.n), torch.float32, ts.device(), pad=max(bm, bn)) if p.give_out else None
    spy = SplitSpy(module.splitk_kernel, p, out, counters, interleave)
    with ts.standing_in(module, "splitk_kernel", spy):
        result = ts.call_kernel(module.launch_split_k, a, b, split_k=p.split_k,
                                out=out.view if out is not None else None, counters=counters,
                                block_m=bm, block_n=bn, block_k=bk)
    prefix = f"{what}: " if what else ""
    try:
        _after(p, spy, out, result, a, b, counters)
    except CheckFailure as failure:
        raise CheckFailure(f"{prefix}{failure}") from None


def _after(p: Problem, spy: SplitSpy, out, result, a, b, counters) -> None:
    launch = ts.the_launch(spy, "launch_split_k", "splitk_kernel")
    ts.check_returned_c(result, out, (p.m, p.n), "launch_split_k")
    a64, b64 = a.detach().cpu().double(), b.detach().cpu().double()
    if out is not None:
        _check_no_strays(p, out)
    _check_planes(p, launch, a64, b64)
    if out is not None:
        _check_c_written(p, out, launch)
        c = out.written()
    else:
        c = result.detach().cpu()
    planes = launch.planes.detach().cpu()
    _check_c(p, c, planes, a64, b64)
    _check_counters(p, launch, counters)
    _check_slice_order(p, c, planes, launch.orders)


def _run(module, trial, problems, interleave: bool) -> None:
    gen = ts.generator(trial)
    for p in problems:
        with trial.case(p.label(interleave)):
            counters = None
            if p.give_counters:
                counters = torch.zeros(p.tiles + SPARE_COUNTERS, dtype=torch.int32, device=ts.device())
            _one_call(module, gen, p, interleave, counters)
            if p.reuse:
                _one_call(module, gen, p, interleave, counters,
                          what="a second call with the same counters (new A and B)")


def _random_problem(trial, min_split: int) -> Problem:
    rng = trial.rng
    return Problem(rng.randint(1, 100), rng.randint(1, 100), rng.randint(1, 160), rng.randint(min_split, 6),
                   (rng.choice([16, 32]), rng.choice([16, 32]), rng.choice([16, 32])), " (random)",
                   transposed_a=rng.random() < 0.5)


def check_launch_split_k(module, trial) -> None:
    problems = [
        Problem(65, 127, 100, 4, (32, 32, 16), ": K in 7 steps of 16, 2 per slice, the last slice 4 long"),
        Problem(7, 65, 40, 4, (16, 32, 16), ": 3 steps for 4 slices, slice 3 empty"),
        Problem(127, 7, 20, 5, (32, 16, 16), ": 2 steps for 5 slices, slices 2-4 empty"),
        Problem(1, 255, 64, 2, (16, 32, 32), ", one row"),
        Problem(255, 1, 33, 3, (32, 16, 16), ", one column, A transposed in memory", transposed_a=True),
        Problem(33, 40, 50, 1, (16, 16, 16), ": one slice, which is also the last"),
        _random_problem(trial, 1),
        Problem(20, 30, 70, 3, (16, 16, 32), ", no out given: launch_split_k makes C", give_out=False),
        Problem(40, 50, 90, 3, (16, 16, 32), ", counters given, then used again", give_counters=True, reuse=True),
    ]
    _run(module, trial, problems, interleave=False)


def check_any_arrival_order(module, trial) -> None:
    problems = [
        Problem(65, 127, 100, 4, (32, 32, 16), ""),
        Problem(40, 50, 130, 3, (16, 16, 32), ", counters given, then used again", give_counters=True, reuse=True),
        Problem(7, 65, 40, 4, (16, 32, 16), ", slice 3 empty"),
        _random_problem(trial, 2),
    ]
    _run(module, trial, problems, interleave=True)


PARTS = [
    Part("k_slices", check_k_slices),
    Part("launch_split_k", check_launch_split_k, needs=("splitk_kernel", "launch_split_k")),
    Part("any_arrival_order", check_any_arrival_order, needs=("splitk_kernel", "launch_split_k"),
         todo="any_arrival_order: programs arrive out of grid order, each tile's slices last to first; only the "
              "last slice to arrive may add the planes into C (after launch_split_k passes)"),
]
