"""Exercise 22 (workshop I10, part 9): how many programs one SM holds at once.

An SM runs several programs (thread blocks) at the same time, as many as its resources allow, and switches
between their warps every cycle: while one warp waits on a load, another issues. The more warps an SM holds,
the more latency it can hide. Four resources set the count, and the first to run out wins. On the H200 (sm_90):

- registers: 65536 per SM. A thread's registers are allocated in steps of 8 (a warp takes 256 at a time), so
  a kernel compiled to 151 registers per thread takes 152;
- warps: at most 64 per SM;
- programs: at most 32 per SM, however small;
- shared memory: 228 KB (233472 bytes) per SM, and the driver keeps 1 KB (1024 bytes) of it for each program.

The depthwise kernel of this workshop, on 256x16 tiles of 4 warps, compiled to 151 registers: 3 programs per SM.
ptxas's register cap (`maxnreg`, tilelab's ConvConfig.maxnreg) lets it fit 4, spilling what no longer fits into
local memory. kernel-inspect prints the same count as "programs per SM" (tilelab.inspect.census.programs_per_sm).

Implement the three functions, then run:  python -m learning.check occupancy
Standard library only.
"""


def registers_allocated(registers):
    """The registers per thread an SM sets aside for a kernel compiled to `registers` (1 to 255).

    registers_allocated(151) == 152; registers_allocated(128) == 128; registers_allocated(1) == 8.
    """
    raise NotImplementedError("registers_allocated: round up to a multiple of 8")


def programs_per_sm(registers, num_warps, shared_bytes=0):
    """How many programs of num_warps warps (1, 2, 4 or 8), each thread using `registers` registers (1 to 255)
    and each program `shared_bytes` of shared memory (0 to 232448), one H200 SM holds at once (at least 1 in
    these ranges).

    programs_per_sm(151, 4) == 3; programs_per_sm(128, 4) == 4; programs_per_sm(56, 2) == 18;
    programs_per_sm(24, 4) == 16 (warps run out first); programs_per_sm(16, 1) == 32 (programs do);
    programs_per_sm(64, 4, 100 * 1024) == 2 (shared memory does: 2 x (100 KB + 1 KB) of 228 KB).
    """
    raise NotImplementedError("programs_per_sm: the smallest of four limits")


def register_cap_for(programs, num_warps):
    """The largest register cap (a multiple of 8, at most 248: a thread cannot have more than 255 registers) at
    which `programs` programs of num_warps warps fit in the SM's 65536 registers. programs >= 1.

    register_cap_for(4, 4) == 128: four programs of 4 warps are 512 threads, 65536 / 512 = 128.
    register_cap_for(10, 2) == 96: 65536 / 640 = 102.4, and 102 is not a multiple of 8.
    register_cap_for(1, 1) == 248.
    """
    raise NotImplementedError("register_cap_for: the register file shared out, rounded down to a multiple of 8")
