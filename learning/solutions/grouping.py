"""Workshop I3 reference: map a program id to an output tile in GROUP_M order."""


def grouped_tile(pid, num_pid_m, num_pid_n, group_m):
    programs_per_group = group_m * num_pid_n
    group = pid // programs_per_group
    first_m = group * group_m
    rows_here = min(group_m, num_pid_m - first_m)  # the last group can be shorter
    local = pid % programs_per_group
    return first_m + local % rows_here, local // rows_here  # walk down the group, then right
