"""Checks for exercise 22 (workshop I10, part 9): registers as allocated, programs per SM, and the register cap
that fits a number of programs."""

from __future__ import annotations

from learning.checking import reference as ref
from learning.checking.compare import check_value
from learning.checking.trial import Part

WARPS = [1, 2, 4, 8]
# (registers, warps, shared bytes) of kernels this repository measured or compiled: the direct kernel's tiles
# (docs/PERFORMANCE.md, "Register caps for the direct kernel"), the persistent matmul, the descriptor matmul.
MEASURED = [(151, 4, 0), (128, 4, 0), (149, 2, 0), (72, 2, 0), (56, 2, 0), (110, 2, 0), (96, 2, 0), (80, 2, 0),
            (154, 8, 180248), (168, 8, 98304), (255, 8, 0), (24, 4, 0), (16, 1, 0), (32, 2, 0), (64, 4, 102400),
            (40, 4, 16384), (200, 1, 0), (1, 1, 232448)]


def check_registers_allocated(module, trial) -> None:
    cases = [151, 152, 128, 1, 7, 8, 9, 72, 73, 110, 255]
    cases += [trial.rng.randint(1, 255) for _ in range(5)]
    for registers in cases:
        with trial.case(f"registers_allocated({registers})"):
            check_value(module.registers_allocated(registers), ref.registers_allocated(registers),
                        f"registers_allocated({registers})", known_mistakes=[
                            (registers, "the SM sets registers aside 8 at a time: round up to a multiple of 8"),
                            (registers // 8 * 8, "round up, not down: 151 registers need 152, not 144"),
                            (registers // 8 * 8 + 8, "a count that is already a multiple of 8 stays as it is: "
                                                     "128 registers take 128"),
                        ])


def _mistakes(registers: int, warps: int, shared: int) -> list:
    threads = 32 * warps
    unrounded = min(ref.SM_REGISTERS // (registers * threads), ref.SM_WARPS // warps, ref.SM_PROGRAMS,
                    ref.SM_SHARED_BYTES // (shared + ref.SHARED_RESERVED_BYTES))
    registers_only = ref.SM_REGISTERS // (ref.registers_allocated(registers) * threads)
    no_program_cap = min(registers_only, ref.SM_WARPS // warps,
                         ref.SM_SHARED_BYTES // (shared + ref.SHARED_RESERVED_BYTES))
    no_warp_cap = min(registers_only, ref.SM_PROGRAMS, ref.SM_SHARED_BYTES // (shared + ref.SHARED_RESERVED_BYTES))
    no_reserve = min(registers_only, ref.SM_WARPS // warps, ref.SM_PROGRAMS,
                     ref.SM_SHARED_BYTES // shared if shared else ref.SM_PROGRAMS)
    one_program_limit = min(registers_only, ref.SM_WARPS // warps, ref.SM_PROGRAMS,
                            ref.PROGRAM_SHARED_LIMIT // (shared + ref.SHARED_RESERVED_BYTES))
    per_warp = min(ref.SM_REGISTERS // (ref.registers_allocated(registers) * warps), ref.SM_WARPS // warps,
                   ref.SM_PROGRAMS, ref.SM_SHARED_BYTES // (shared + ref.SHARED_RESERVED_BYTES))
    return [
        (unrounded, "registers are set aside 8 at a time: use registers_allocated(registers), not registers"),
        (no_program_cap, "an SM holds at most 32 programs, however few registers and warps they use"),
        (no_warp_cap, "an SM holds at most 64 warps: num_warps warps a program, so at most 64 // num_warps"),
        (no_reserve, "the driver keeps 1 KB (1024 bytes) of shared memory for every program: divide by "
                     "shared_bytes + 1024"),
        (one_program_limit, "an SM has 228 KB (233472 bytes) of shared memory; 227 KB (232448) is the most one "
                            "program may ask for"),
        (per_warp, "each of a program's num_warps * 32 threads has its own registers: registers_allocated * "
                   "32 * num_warps per program"),
        (registers_only, "registers are one limit of four: also warps (64), programs (32) and shared memory"),
    ]


# Cases where one limit alone decides, each telling a known mistake apart: registers rounded up (73 -> 80),
# programs (32), warps (64), and the driver's 1 KB of shared memory per program.
TELLING = [(73, 2, 0), (16, 1, 0), (24, 4, 0), (32, 4, 116736)]


def check_programs_per_sm(module, trial) -> None:
    cases = TELLING + MEASURED
    cases += [(trial.rng.randint(1, 255), trial.rng.choice(WARPS), trial.rng.choice([0, 0, trial.rng.randint(0,
              232448)])) for _ in range(6)]
    for registers, warps, shared in cases:
        call = f"programs_per_sm({registers}, {warps}, {shared})"
        with trial.case(call):
            want = ref.programs_per_sm(registers, warps, shared)
            mistakes = [(value, hint) for value, hint in _mistakes(registers, warps, shared) if value != want]
            check_value(module.programs_per_sm(registers, warps, shared), want, call, known_mistakes=mistakes)


def check_register_cap_for(module, trial) -> None:
    cases = [(4, 4), (3, 4), (10, 2), (1, 1), (1, 8), (2, 8), (14, 2), (18, 2), (16, 4), (5, 4), (7, 2)]
    cases += [(trial.rng.randint(1, 32), trial.rng.choice(WARPS)) for _ in range(5)]
    for programs, warps in cases:
        call = f"register_cap_for({programs}, {warps})"
        with trial.case(call):
            want = ref.register_cap_for(programs, warps)
            exact = ref.SM_REGISTERS // (programs * 32 * warps)
            mistakes = [(exact, "a cap is a multiple of 8 (registers are set aside 8 at a time): round the share "
                                "down to one"),
                        (-(-exact // 8) * 8, "round the share down, not up: a cap rounded up no longer fits "
                                             f"{programs} programs"),
                        (min(exact, 255), "a cap is a multiple of 8, and at most 248: round down to a multiple "
                                          "of 8")]
            check_value(module.register_cap_for(programs, warps), want, call,
                        known_mistakes=[(value, hint) for value, hint in mistakes if value != want])


PARTS = [
    Part("registers_allocated", check_registers_allocated),
    Part("programs_per_sm", check_programs_per_sm),
    Part("register_cap_for", check_register_cap_for),
]
