"""Shared memory shared out without the driver's 1 KB per program: two programs of 114 KB seem to fit."""

from learning.solutions.occupancy import register_cap_for, registers_allocated  # noqa: F401


def programs_per_sm(registers, num_warps, shared_bytes=0):
    threads = num_warps * 32
    by_registers = 65536 // (registers_allocated(registers) * threads)
    by_shared = 233472 // shared_bytes if shared_bytes else 32  # BUG: shared_bytes + 1024 per program
    return min(by_registers, 64 // num_warps, 32, by_shared)
