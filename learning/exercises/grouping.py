"""Workshop I3 exercise: the GROUP_M order of output tiles.

A 1-D grid numbers programs 0, 1, 2, ... Each program must pick one output tile
(pid_m, pid_n) out of a num_pid_m x num_pid_n grid of tiles, every tile exactly once.

Implement grouped_tile, then run:  python -m learning.check grouping
Standard library only. Read learning/workshops/I3_group_m.md first.
"""


def grouped_tile(pid, num_pid_m, num_pid_n, group_m):
    """Return (pid_m, pid_n) for program pid.

    Tiles are taken in groups of group_m tile rows. Inside a group, consecutive programs
    walk DOWN the group's rows, then move one column right. The last group may have fewer
    than group_m rows. With group_m == 1 this is plain row-major order.
    """
    raise NotImplementedError("grouped_tile: which group, which row in it, which column?")
