"""Registers counted as compiled, not as allocated: 73 registers are set aside as 80, which fits fewer programs."""

from learning.solutions.occupancy import register_cap_for, registers_allocated  # noqa: F401


def programs_per_sm(registers, num_warps, shared_bytes=0):
    threads = num_warps * 32
    by_registers = 65536 // (registers * threads)  # BUG: registers_allocated(registers)
    return min(by_registers, 64 // num_warps, 32, 233472 // (shared_bytes + 1024))
