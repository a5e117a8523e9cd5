"""explain grouping: which output tile each program of a 1-D grid takes, GROUP_M=1 versus grouped."""

from __future__ import annotations

from learning.checking import reference as ref

from .script import Script

NUM_PID_M, NUM_PID_N = 4, 3  # a small grid of output tiles, so every step can be predicted


def order_grid(num_pid_m, num_pid_n, group_m) -> list[str]:
    """Text picture: each tile shows the program that computes it."""
    owner = {}
    for pid in range(num_pid_m * num_pid_n):
        owner[ref.grouped_tile(pid, num_pid_m, num_pid_n, group_m)] = pid
    lines = ["           " + " ".join(f"n{c:<2}" for c in range(num_pid_n))]
    for m in range(num_pid_m):
        lines.append(f"    m{m:<2}    " + " ".join(f"{owner[(m, n)]:>3}" for n in range(num_pid_n)))
    return lines


def panels_touched(num_pid_m, num_pid_n, group_m, wave) -> tuple[int, int]:
    """How many row panels of A and column panels of B the first `wave` programs need."""
    tiles = [ref.grouped_tile(pid, num_pid_m, num_pid_n, group_m) for pid in range(wave)]
    return len({m for m, _ in tiles}), len({n for _, n in tiles})


def build() -> Script:
    s = Script("grouping: the order in which programs take output tiles")
    s.say(f"A 1-D grid of {NUM_PID_M * NUM_PID_N} programs covers a {NUM_PID_M} x {NUM_PID_N} grid of C tiles.")
    s.say("Each program turns its id into a tile (pid_m, pid_n).\n")
    s.say("GROUP_M=1 (tilelab's fixed config): row-major, pid_m = pid // num_pid_n, pid_n = pid % num_pid_n")
    for pid in (0, 2, 3, 7):
        s.ask(f"GROUP_M=1, program {pid}", ref.grouped_tile(pid, NUM_PID_M, NUM_PID_N, 1))
    for line in order_grid(NUM_PID_M, NUM_PID_N, 1):
        s.say(line)

    group_m = 2
    s.say(f"\nGROUP_M={group_m}: programs walk DOWN a band of {group_m} tile rows, then step right.")
    per_group = group_m * NUM_PID_N
    s.ask(f"programs per group = GROUP_M * num_pid_n = {group_m} * {NUM_PID_N}", per_group)
    pid = 5
    group = pid // per_group
    first_m = group * group_m
    rows_here = min(group_m, NUM_PID_M - first_m)
    local = pid % per_group
    s.say(f"Trace program {pid}:")
    s.ask(f"  group = {pid} // {per_group}", group)
    s.ask("  first_m = group * GROUP_M", first_m)
    s.ask("  rows in this group = min(GROUP_M, num_pid_m - first_m)", rows_here)
    s.ask(f"  local = {pid} % {per_group}", local)
    s.ask(f"  pid_m = first_m + local % rows = {first_m} + {local} % {rows_here}", first_m + local % rows_here)
    s.ask(f"  pid_n = local // rows = {local} // {rows_here}", local // rows_here)
    for line in order_grid(NUM_PID_M, NUM_PID_N, group_m):
        s.say(line)

    s.say("\nWhy bother: programs that run at the same time share loads through the L2 cache.")
    wave = 4
    for g in (1, group_m):
        a_panels, b_panels = panels_touched(NUM_PID_M, NUM_PID_N, g, wave)
        s.ask(f"GROUP_M={g}: A row panels + B column panels read by programs 0..{wave - 1}",
              f"{a_panels} + {b_panels} = {a_panels + b_panels}")
    big_m, big_n, big_wave = 16, 16, 32
    for g in (1, 8):
        a_panels, b_panels = panels_touched(big_m, big_n, g, big_wave)
        s.ask(f"a {big_m}x{big_n} tile grid, GROUP_M={g}: panels for the first {big_wave} programs",
              f"{a_panels} + {b_panels} = {a_panels + b_panels}")
    s.say("Same output, same FLOPs; fewer distinct panels means more cache hits. tilelab's tuned configs mostly use "
          "GROUP_M=8.")
    s.say("\nDerive it yourself: learning/workshops/I3_group_m.md, then python -m learning.check grouping")
    return s
