"""Exercise 15 (workshop I6): two warp groups taking turns on a ring of stages.

tilelab's pingpong kernel (src/tilelab/kernels/matmul_pingpong.py) gives each of a program's two warp groups
whole tiles, alternately, so one stores a finished tile while the other multiplies. One loader warp fills a
ring of `stages` shared-memory buffers in tile order; K step k of the program's tile j sits at ring position
j * k_steps + k, in stage position % stages.

Each stage has a "ready" mbarrier. An mbarrier counts completed phases; a wait names a parity (0 or 1) and
returns at once if the barrier's current phase has the other parity, that is, if the last phase of the named
parity has completed. A fresh barrier (0 phases completed) is in phase 0: a wait for parity 1 returns at once.
The wait cannot tell *which* phase of that parity completed, which is where the kernel's first version went
wrong. The last two functions are the rule that decides, in tilelab.ops.matmul_pingpong.pays_off, when the
default takes this kernel.

Implement the six functions, then run:  python -m learning.check turns
Standard library only. Workshop I6 (learning/workshops/I6_taking_turns.md) uses them.
"""


def ring_position(tile, k, k_steps):
    """The ring position of K step `k` of the program's `tile`-th tile (both counted from 0), when every tile
    takes `k_steps` steps. tile, k >= 0; 0 <= k < k_steps.

    ring_position(0, 0, 16) == 0; ring_position(1, 0, 16) == 16; ring_position(2, 5, 16) == 37.
    """
    raise NotImplementedError("ring_position: the tiles before this one each used k_steps positions")


def stage_and_parity(position, stages):
    """(the stage a ring position uses, the parity of the round it is in): the ring goes round once every
    `stages` positions, and round r's data completes phase r of its stage's "ready" barrier.

    stage_and_parity(0, 6) == (0, 0); stage_and_parity(16, 6) == (4, 0); stage_and_parity(9, 6) == (3, 1).
    """
    raise NotImplementedError("stage_and_parity: which stage, and is the round number even or odd?")


def wait_returns(completed, parity):
    """Whether an mbarrier wait for `parity` returns at once, on a barrier that has completed `completed`
    phases (completed >= 0, parity 0 or 1).

    wait_returns(0, 0) is False (phase 0 has not completed); wait_returns(0, 1) is True (a fresh barrier);
    wait_returns(1, 0) is True; wait_returns(2, 0) is False.
    """
    raise NotImplementedError("wait_returns: compare the parity of the current phase with the one waited for")


def wait_is_right(completed, wanted):
    """Whether a wait for round `wanted` (on its parity) can be trusted, on a barrier that has completed
    `completed` phases: it either blocks until round `wanted`'s data arrives (completed == wanted) or returns
    with that data as the stage's latest (completed == wanted + 1). With fewer phases completed the wait may
    return on an earlier round's data; with more, round `wanted`'s data has been overwritten. completed,
    wanted >= 0.

    wait_is_right(0, 0) is True; wait_is_right(3, 2) is True; wait_is_right(1, 2) is False (round 0's data
    passes for round 2's: the kernel's first bug); wait_is_right(5, 2) is False.
    """
    raise NotImplementedError("wait_is_right: is the barrier within one round of the one waited for?")


def waves_in_tiles(m, n, block_m, block_n, sms):
    """How long the busiest program of a persistent grid runs, in 128x128 tiles: C [m, n] in block_m x block_n
    tiles shared out among `sms` programs (the busiest gets the rounded-up share), each tile worth
    block_m * block_n / (128 * 128) of a 128x128 one. block_m * block_n is a multiple of 128 * 128.

    waves_in_tiles(4096, 4096, 128, 256, 132) == 8 (4 tiles of 2); waves_in_tiles(4096, 11008, 128, 128, 132)
    == 21; waves_in_tiles(4096, 11008, 128, 256, 132) == 22.
    """
    raise NotImplementedError("waves_in_tiles: tiles, their share for the busiest program, times their size")


def pingpong_pays_off(m, n, k, sms, max_k=2048):
    """Whether the default takes the pingpong kernel (128x128 tiles) where it would take the persistent one
    (128x256): when K is at most max_k, or when the pingpong kernel's busiest program finishes sooner
    (fewer 128x128 tiles in waves_in_tiles).

    pingpong_pays_off(8192, 8192, 1024, 132) is True; pingpong_pays_off(4096, 4096, 4096, 132) is False;
    pingpong_pays_off(4096, 11008, 4096, 132) is True.
    """
    raise NotImplementedError("pingpong_pays_off: a short K, or a last wave the smaller tiles fill better")
