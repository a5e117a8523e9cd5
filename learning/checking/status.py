"""Check statuses, how they combine, and the exit code each one gives."""

from __future__ import annotations

from enum import Enum


class Status(str, Enum):
    PASS = "PASS"
    FAIL = "FAIL"  # the code ran and gave a wrong answer
    TODO = "TODO"  # the code still raises NotImplementedError
    ERROR = "ERROR"  # the code crashed, hung past the time limit, or is missing a function
    UNAVAILABLE = "UNAVAILABLE"  # this machine cannot run the check (no triton/torch)

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self]


# 2 is left to argparse, which uses it for a bad command line.
EXIT_CODES = {
    Status.PASS: 0,
    Status.FAIL: 1,
    Status.ERROR: 3,
    Status.TODO: 4,
    Status.UNAVAILABLE: 5,
}
USAGE_EXIT_CODE = 2

# When several results combine (parts of one exercise, or `all`), the most urgent wins.
_URGENCY = [Status.ERROR, Status.FAIL, Status.TODO, Status.UNAVAILABLE, Status.PASS]


def most_urgent(statuses) -> Status:
    statuses = list(statuses)
    if not statuses:
        return Status.PASS
    return min(statuses, key=_URGENCY.index)


EXIT_CODE_HELP = """\
exit codes (for several exercises, the most urgent status wins, in this order):
  3  ERROR        the code crashed, ran past the time limit, or a function is missing
  1  FAIL         the code ran and gave a wrong answer
  4  TODO         a function still raises NotImplementedError
  5  UNAVAILABLE  this machine cannot run the check (Triton exercises need torch and triton)
  0  PASS         everything checked passed
  2               bad command line
"""
