"""Shared pieces of the Triton checks: where tensors live and how differences are reported.

Imported only by the Triton checks (it needs torch). By the time it runs, the worker
has decided between a GPU and Triton's interpreter (TRITON_INTERPRET=1).
"""

from __future__ import annotations

import os
from contextlib import contextmanager

import torch

from .tensor_guards import fmt_value
from .trial import CheckFailure


def device() -> str:
    return "cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"


def generator(trial) -> torch.Generator:
    return torch.Generator().manual_seed(trial.seed)


def randn(trial, *shape, gen: torch.Generator, scale: float = 1.0, dtype=torch.float32) -> torch.Tensor:
    return (torch.randn(*shape, generator=gen) * scale).to(dtype).to(device())


def first_difference(got: torch.Tensor, want: torch.Tensor, rtol: float, atol: float):
    """(index, got value, wanted value) of the first element outside tolerance, or None."""
    got, want = got.detach().cpu().float(), want.detach().cpu().float()
    bad = ~torch.isclose(got, want, rtol=rtol, atol=atol)
    if not bool(bad.any()):
        return None
    index = tuple(bad.nonzero()[0].tolist())
    return index, float(got[index]), float(want[index])


def name_index(name: str, index: tuple[int, ...]) -> str:
    return f"{name}[{','.join(str(i) for i in index)}]"


def fail_at(name: str, index, got: float, want: float, why: str = "") -> None:
    shown_got, shown_want = fmt_value(got), fmt_value(want)
    if shown_got == shown_want:  # close, but outside the tolerance: show the digits that differ
        shown_got, shown_want = f"{got:.9g}", f"{want:.9g}"
    message = f"{name_index(name, index)} is {shown_got}, expected {shown_want}"
    raise CheckFailure(f"{message}: {why}" if why else message)


def call_kernel(launch, *args, **kwargs):
    """Launch the learner's kernel and wait for it, so a GPU fault surfaces here."""
    result = launch(*args, **kwargs)
    if device() == "cuda":
        torch.cuda.synchronize()
    return result


# -- launch spies: a check stands in for the learner's kernel to see how it is launched --------------------------


def constant(value):
    """A launch argument as a plain number (a tl.constexpr holds its number in .value; a bool stays a bool)."""
    value = getattr(value, "value", value)
    return int(value) if isinstance(value, int) and not isinstance(value, bool) else value


class OneLaunchSpy:
    """Stands in for the learner's kernel in a launcher that must launch it once: each launch is recorded as
    `record_type(grid shape, {parameter: argument})`, a second one fails with `twice(count)`, and subclasses say what
    to check before the run (`_before`), what to hand the kernel instead (`_arguments`) and how to run it (`_run`)."""

    record_type = tuple

    def __init__(self, kernel):
        self.kernel = kernel
        self.launches: list = []

    def __getattr__(self, name):
        return getattr(self.kernel, name)

    def __getitem__(self, grid):
        def launch(*args, **kwargs):
            record = self.record_type(*bind_launch(self.kernel, grid, args, kwargs))
            self.launches.append(record)
            if len(self.launches) > 1:
                raise CheckFailure(self.twice(len(self.launches)))
            self._before(record)
            args, kwargs = self._arguments(record, list(args), dict(kwargs))
            return self._run(record, grid, args, kwargs)

        return launch

    def twice(self, count: int) -> str:
        raise NotImplementedError

    def _before(self, record) -> None:
        pass

    def _arguments(self, record, args: list, kwargs: dict) -> tuple[list, dict]:
        return args, kwargs

    def _run(self, record, grid, args, kwargs):
        return self.kernel[grid](*args, **kwargs)


@contextmanager
def standing_in(module, name: str, spy: OneLaunchSpy):
    """`module.<name>`, the learner's kernel, replaced by `spy` (which launches it) for the block: a launcher looks
    the kernel up in its module when it runs."""
    kernel = getattr(module, name)
    spy.kernel = kernel
    setattr(module, name, spy)
    try:
        yield spy
    finally:
        setattr(module, name, kernel)


def the_launch(spy: OneLaunchSpy, launcher: str, kernel: str):
    """The spy's one recorded launch; fails if the launcher never launched the kernel by its name, or if the watch
    between programs saw something go wrong (a record's `problem`)."""
    if not spy.launches:
        raise CheckFailure(f"{launcher} never launched {kernel}: launch it by that name, {kernel}[grid](...), so "
                           "the check can see its grid and arguments")
    launch = spy.launches[0]
    if getattr(launch, "problem", None):
        raise CheckFailure(launch.problem)
    return launch


def check_returned_c(result, out, shape: tuple[int, int], launcher: str) -> None:
    """A launcher that writes C returns it: `out` itself when given one, else a new float32 tensor of `shape`."""
    m, n = shape
    if out is not None:
        if not (isinstance(result, torch.Tensor) and result.data_ptr() == out.view.data_ptr()
                and tuple(result.shape) == shape):
            raise CheckFailure(f"{launcher}(a, b, out=out) returned {type(result).__name__}, not out: return C, the "
                               "tensor the kernel wrote")
    elif not (isinstance(result, torch.Tensor) and tuple(result.shape) == shape and result.dtype == torch.float32):
        what = f" of shape {tuple(result.shape)}, {result.dtype}" if isinstance(result, torch.Tensor) else ""
        raise CheckFailure(f"{launcher}(a, b) returned {type(result).__name__}{what}: with no out, make a {m}x{n} "
                           "float32 C, launch, and return it")


def bind_launch(kernel, grid, args, kwargs) -> tuple[tuple[int, ...], dict]:
    """A spied launch `kernel[grid](*args, **kwargs)` as (the grid's shape, {parameter name: argument})."""
    bound = dict(zip(kernel.arg_names, args, strict=False))  # fewer args when some are keywords
    bound.update(kwargs)
    shape = grid(bound) if callable(grid) else grid
    shape = tuple(int(g) for g in shape) if isinstance(shape, (tuple, list)) else (int(shape),)
    return shape, bound


# -- choosing the order of the interpreter's programs, and looking at memory between them ------------------------


def _interpreter_builder():
    if device() != "cpu":
        return None
    try:
        from triton.runtime import interpreter
    except ImportError:  # pragma: no cover - an interpreter without the module
        return None
    builder = getattr(interpreter, "interpreter_builder", None)
    return builder if callable(getattr(builder, "set_grid_idx", None)) else None


def can_order_programs() -> bool:
    """Whether this Triton's interpreter lets a check choose the programs' order and look at memory between
    programs (tests/learning asserts it). Never on a GPU, where the programs run at the same time."""
    return _interpreter_builder() is not None


@contextmanager
def programs_in_order(schedule, after_each):
    """Run the interpreter's programs in `schedule`'s order, a list of (x, y) program ids (None: the grid's own
    order), and call after_each((x, y)) once each program has finished; call the function this yields after the
    launch, for the last program. Nothing happens on a GPU.

    The interpreter runs one program at a time: it calls its builder's set_grid_idx(x, y, z) right before each.
    Wrapping that method lets a check renumber the programs (exercise 19 makes a tile's slices arrive last to
    first) and see memory as each program left it (exercise 20 sees which tiles each program wrote)."""
    builder = _interpreter_builder()
    if builder is None:
        yield lambda: None
        return
    original = builder.set_grid_idx
    state = {"count": 0, "previous": None}

    def set_grid_idx(x, y, z):  # called by the interpreter right before it runs each program
        if state["previous"] is not None:
            after_each(state["previous"])
        program = schedule[state["count"]] if schedule else (x, y)
        state["count"] += 1
        state["previous"] = program
        original(program[0], program[1], z)

    def finish():
        if state["previous"] is not None:
            after_each(state["previous"])
            state["previous"] = None

    builder.set_grid_idx = set_grid_idx
    try:
        yield finish
    finally:
        del builder.set_grid_idx  # the class's own method again
