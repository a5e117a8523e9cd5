"""The SM's shared memory is taken as 227 KB, the most one program may ask for, instead of 228 KB."""

REGISTERS_PER_SM = 65536
WARPS_PER_SM = 64
PROGRAMS_PER_SM = 32
SHARED_BYTES_PER_SM = 227 * 1024
SHARED_BYTES_KEPT_PER_PROGRAM = 1024
REGISTER_STEP = 8
THREADS_PER_WARP = 32


def registers_allocated(registers):
    return -(-registers // REGISTER_STEP) * REGISTER_STEP


def programs_per_sm(registers, num_warps, shared_bytes=0):
    threads = num_warps * THREADS_PER_WARP
    by_registers = REGISTERS_PER_SM // (registers_allocated(registers) * threads)
    by_warps = WARPS_PER_SM // num_warps
    by_shared = SHARED_BYTES_PER_SM // (shared_bytes + SHARED_BYTES_KEPT_PER_PROGRAM)
    return min(by_registers, by_warps, PROGRAMS_PER_SM, by_shared)


def register_cap_for(programs, num_warps):
    per_thread = REGISTERS_PER_SM // (programs * num_warps * THREADS_PER_WARP)
    return min(per_thread // REGISTER_STEP * REGISTER_STEP, 255 // REGISTER_STEP * REGISTER_STEP)
