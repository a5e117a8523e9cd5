"""No limit of 32 programs per SM: tiny programs seem to fit by the hundred."""

from learning.solutions.occupancy import register_cap_for, registers_allocated  # noqa: F401


def programs_per_sm(registers, num_warps, shared_bytes=0):
    threads = num_warps * 32
    by_registers = 65536 // (registers_allocated(registers) * threads)
    return min(by_registers, 64 // num_warps, 233472 // (shared_bytes + 1024))  # BUG: and 32
