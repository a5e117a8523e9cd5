"""The last wave of a one-program-per-tile launch, handed to a second launch with smaller tiles.

A large tile keeps one program per SM. At 3000^3 in fp16, 128x256 tiles make 288 programs for the H200's 132
SMs: two full waves, then a third in which 24 SMs work and 108 wait, a third of the time for a twelfth of
the work. Which tiles run last is known: the descriptor kernel numbers its tiles in GROUP_M order, so the
last ones are the last columns of tiles of the last band of GROUP_M tile rows, a rectangle C[row0:, col0:].
So the main launch computes every tile before it (`whole_tiles` programs, whole waves), and that rectangle,
a small matmul of its own (A[row0:] @ B[:, col0:]), is planned and tuned like any other and launched next,
with tiles small enough to spread over the SMs.

`tilelab.ops.matmul` asks `plan_for` whether a launch splits and calls `launch`; nothing here checks inputs.
"""

import dataclasses

import torch

from tilelab import env, tuning
from tilelab.tuning import Config, ceil_div

# Split only when the last wave is at most this full: the rest then takes a fraction of a wave on all the
# SMs instead of a whole wave on a few of them.
LAST_WAVE_MAX_FILL = 0.5


@dataclasses.dataclass(frozen=True)
class LastWave:
    """The main launch computes the first `whole_tiles` tiles in GROUP_M order; the rest is C[row0:, col0:]."""

    whole_tiles: int
    row0: int
    col0: int


def split(m: int, n: int, config: Config, programs_per_wave: int) -> LastWave | None:
    """Where to cut a launch of `config`'s tiles over [m, n] whose last wave is at most LAST_WAVE_MAX_FILL
    full; None when it is fuller (or there is one wave, or none left over)."""
    grid_m, grid_n = ceil_div(m, config.block_m), ceil_div(n, config.block_n)
    tiles = grid_m * grid_n
    rest = tiles % programs_per_wave
    if tiles <= programs_per_wave or rest == 0 or rest > LAST_WAVE_MAX_FILL * programs_per_wave:
        return None
    # The last band holds the last tiles, numbered down its columns (`grouped_tile`): whole columns of it
    # make a rectangle.
    band_first_row = (tiles - 1) // (config.group_m * grid_n) * config.group_m
    band_rows = min(grid_m - band_first_row, config.group_m)
    columns = ceil_div(rest, band_rows)
    if columns >= grid_n:
        return None  # the rest would be the whole band, not a corner of it
    return LastWave(tiles - columns * band_rows, band_first_row * config.block_m, (grid_n - columns) * config.block_n)


def one_program_per_sm(config: Config, element_size: int, out_element_size: int) -> bool:
    """Whether the tile's shared memory leaves room for only one program per SM, so that a wave is one
    program per SM (smaller tiles share SMs, and their waves are not this module's arithmetic)."""
    return config.shared_memory_bytes(element_size, out_element_size) > tuning.SHARED_MEMORY_BUDGET // 2


def plan_for(plan, config: Config, p, out_dtype: torch.dtype, device: torch.device) -> LastWave | None:
    """The split for a planned problem `p` (`tilelab.ops.matmul._Problem`), or None: only the descriptor path's
    one GEMM, with tiles that hold an SM each, and a rest whose A and B views TMA can read. (C's view can be:
    tilelab gave C's rows 16-byte multiples, and col0 is a multiple of a tile's width.)"""
    if plan.path != "descriptor" or max(p.a3.shape[0], p.b3.shape[0]) != 1:
        return None
    from tilelab.ops.matmul import operand_layout
    from tilelab.ops.matmul_hopper import device_sms

    if not one_program_per_sm(config, p.a3.element_size(), out_dtype.itemsize):
        return None
    last_wave = split(p.m, p.n, config, device_sms(device))
    if last_wave is None:
        return None
    rest = (p.a3[:, last_wave.row0:, :], p.b3[:, :, last_wave.col0:])
    return last_wave if all(operand_layout(view).tma_ok for view in rest) else None


def launch(plan, config: Config, a3, b3, c3, m: int, n: int, k: int, last_wave: LastWave):
    """Launch the whole waves, then the rest on views, planned as `tilelab.matmul` would plan that problem by
    itself: its K is as long as the whole problem's, over few tiles, so it is often split-K's kind of problem.
    Returns what `bind` needs."""
    from tilelab.ops import matmul as matmul_op
    from tilelab.ops import matmul_hopper

    main = matmul_op._launch(plan, config, a3, b3, c3, m, n, k, tiles=last_wave.whole_tiles)
    a_rest, b_rest = a3[:, last_wave.row0:, :], b3[:, :, last_wave.col0:]
    c_rest = c3[:, last_wave.row0:, last_wave.col0:]
    rest = matmul_op._Problem(a_rest, b_rest, m - last_wave.row0, n - last_wave.col0, k, 1, [])
    rest_plan = matmul_op.plan_matmul(a_rest, b_rest, None, plan.input_precision, None)
    offsets = tuple(view.data_ptr() - whole.data_ptr() for view, whole in ((a_rest, a3), (b_rest, b3), (c_rest, c3)))
    if rest_plan.path == "splitk":
        workspace, *launched = matmul_hopper._launch_split_k(
            a_rest, b_rest, c_rest, rest.m, rest.n, k, plan.input_precision,
            matmul_op.split_k_config(rest_plan, rest, c_rest))
        return main, ("splitk", *launched, tuple(workspace.shape)), offsets
    rest_plan = dataclasses.replace(rest_plan, path="descriptor")  # what the main launch could read, TMA can
    if env.interpreting():
        rest_config = tuning.INTERPRETER
    else:
        rest_config = tuning.choose(
            matmul_op._tuning_key(rest_plan, a_rest, c_rest, rest.m, rest.n, k),
            matmul_op._candidates(a3.element_size(), rest.m, rest.n, c3.element_size()),
            lambda cfg: matmul_op._launch(rest_plan, cfg, a_rest, b_rest, c_rest, rest.m, rest.n, k),
        )
    launched = matmul_op._launch(rest_plan, rest_config, a_rest, b_rest, c_rest, rest.m, rest.n, k)
    return main, ("descriptor", *launched), offsets


def bind(main, rest, offsets):
    """A replay of both launches: a function (stream, a_address, b_address, c_address). A split-K rest gets a
    fresh workspace at every call, and the shared tile counters (`split_k_counters`)."""
    from tilelab.ops.matmul import bind_descriptor_launch, bind_launch
    from tilelab.ops.matmul_hopper import split_k_counters

    first = bind_descriptor_launch(main[0], main[1], main[2][3:], main[2][:3])
    da, db, dc = offsets
    if rest[0] == "descriptor":
        _, compiled, grid, args = rest
        second = bind_descriptor_launch(compiled, grid, args[3:], args[:3])

        def both(stream, a, b, c):
            first(stream, a, b, c)
            second(stream, a + da, b + db, c + dc)
        return both
    _, compiled, grid, args, workspace_shape = rest
    second = bind_launch(compiled, grid, args[5:])  # after a, b, c, workspace, counters
    device, tiles = args[2].device, grid[0] * grid[2]

    def with_split_k(stream, a, b, c):
        first(stream, a, b, c)
        workspace = torch.empty(workspace_shape, dtype=torch.float32, device=device)
        second(stream, a + da, b + db, c + dc, workspace.data_ptr(), split_k_counters(device, tiles).data_ptr())
    return with_split_k
