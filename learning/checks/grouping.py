"""Checks for the workshop I3 exercise: the GROUP_M order of output tiles."""

from __future__ import annotations

from learning.checking import reference as ref
from learning.checking.trial import CheckFailure, Part


def check_grouped_tile(module, trial) -> None:
    grids = [(4, 3, 1), (4, 3, 2), (9, 4, 8), (13, 5, 8), (1, 6, 8), (5, 1, 4), (16, 12, 8)]
    grids.append((trial.rng.randint(1, 20), trial.rng.randint(1, 20), trial.rng.choice([1, 2, 4, 8])))
    for num_pid_m, num_pid_n, group_m in grids:
        with trial.case(f"a {num_pid_m}x{num_pid_n} grid of tiles, GROUP_M={group_m}"):
            seen = {}
            for pid in range(num_pid_m * num_pid_n):
                got = tuple(module.grouped_tile(pid, num_pid_m, num_pid_n, group_m))
                want = ref.grouped_tile(pid, num_pid_m, num_pid_n, group_m)
                if not (0 <= got[0] < num_pid_m and 0 <= got[1] < num_pid_n):
                    last_rows = num_pid_m % group_m
                    extra = (f": the last group has only {last_rows} tile row(s), so the group size there "
                             "is min(GROUP_M, num_pid_m - first_m)") if last_rows else ""
                    raise CheckFailure(f"program {pid} went to tile {got}, outside the "
                                       f"{num_pid_m}x{num_pid_n} grid{extra}")
                if got in seen:
                    raise CheckFailure(f"programs {seen[got]} and {pid} both went to tile {got}: "
                                       "every tile needs exactly one program")
                seen[got] = pid
                if got != want:
                    hint = ""
                    if group_m == 1:
                        hint = ": with GROUP_M=1 the order is plain row-major, (pid // num_pid_n, pid % num_pid_n)"
                    elif got == (want[1], want[0]) or got == ref.grouped_tile(pid, num_pid_m, num_pid_n, 1):
                        hint = ": inside a group, programs walk DOWN the group's tile rows before moving right"
                    raise CheckFailure(f"program {pid} went to tile {got}, expected {want}{hint}")


PARTS = [Part("grouped_tile", check_grouped_tile)]
