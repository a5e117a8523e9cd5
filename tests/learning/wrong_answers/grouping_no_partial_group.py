"""grouped_tile assumes every group has GROUP_M rows, which the last one may not."""


def grouped_tile(pid, num_pid_m, num_pid_n, group_m):
    per_group = group_m * num_pid_n
    first_m = pid // per_group * group_m
    local = pid % per_group
    return first_m + local % group_m, local // group_m
