"""The pingpong kernel's synchronization, simulated in Python: every warp group reads each stage in the round
it wants, under any interleaving, and nothing deadlocks.

Gluon kernels do not run on Triton's interpreter, so this models what `kernels/matmul_pingpong.py` and
`kernels/gluon_loader.py` do with their mbarriers, with the same ring positions and wait parities:

- the loader waits on stage s's "empty" barrier for parity ((step // STAGES) & 1) ^ 1, loads ring position
  `step` into s and completes a phase of s's "ready" barrier;
- warp group TURN takes the program's tiles TURN, TURN + 2, ...; before tile `mine` it waits on the other
  group's "turns" barrier for parity ((mine - 1) // 2) & 1; each K step waits on "ready" for parity
  (step // STAGES) & 1, then releases the previous step's stage (one wgmma stays in flight); after the K loop
  it arrives on its own "turns" barrier, then releases its last stage.

An mbarrier here is a count of completed phases; a wait for a parity returns when count % 2 differs from it.
A scheduler runs whichever actor may proceed, chosen at random. Without the "turns" waits (the kernel's
first version, which faulted on the H200) some interleaving gives a group another round's data.
"""

import random

import pytest


class WrongRound(AssertionError):
    pass


def _run(tiles: int, k_steps: int, stages: int, seed: int, take_turns: bool = True) -> None:
    ready = [0] * stages  # completed phases per stage
    empty = [0] * stages
    turns = [0, 0]
    content = [None] * stages  # the ring position whose data a stage holds
    rng = random.Random(seed)

    def returns(completed: int, parity: int) -> bool:
        return completed % 2 != parity

    def loader():
        for step in range(tiles * k_steps):
            stage = step % stages
            yield lambda stage=stage, step=step: returns(empty[stage], ((step // stages) & 1) ^ 1)
            content[stage] = step
            ready[stage] += 1

    def group(turn: int):
        for mine in range(turn, tiles, 2):
            if take_turns and mine > 0:
                yield lambda mine=mine: returns(turns[1 - turn], ((mine - 1) // 2) & 1)
            step = mine * k_steps
            for k in range(k_steps):
                stage = step % stages
                yield lambda stage=stage, step=step: returns(ready[stage], (step // stages) & 1)
                if content[stage] != step:
                    raise WrongRound(f"group {turn} read ring position {content[stage]} for {step}")
                if k > 0:
                    empty[(step - 1) % stages] += 1  # the previous step's wgmma is done with its stage
                step += 1
            turns[turn] += 1
            empty[(step - 1) % stages] += 1

    actors = [loader(), group(0), group(1)]
    waiting = {}  # actor -> the condition it waits on
    for actor in actors:
        waiting[actor] = next(actor, None)
    while any(condition is not None for condition in waiting.values()):
        runnable = [actor for actor, condition in waiting.items() if condition is not None and condition()]
        assert runnable, f"deadlock (tiles={tiles}, k_steps={k_steps}, stages={stages}, seed={seed})"
        actor = rng.choice(runnable)
        waiting[actor] = next(actor, None)


@pytest.mark.parametrize("tiles,k_steps,stages", [(1, 1, 6), (2, 16, 6), (5, 16, 6), (8, 3, 6), (7, 1, 6),
                                                  (6, 64, 6), (9, 5, 5), (4, 2, 2), (3, 7, 4)])
def test_every_read_gets_its_round_and_nothing_deadlocks(tiles, k_steps, stages):
    for seed in range(40):
        _run(tiles, k_steps, stages, seed)


def test_without_turns_a_group_reads_another_round():
    """The first version: group 1 waits on a stage's "ready" barrier rounds ahead of the ring, and a parity
    match lets it through on round 0's data (K = 1024 in 6 stages: 16 steps per tile)."""
    failures = 0
    for seed in range(40):
        try:
            _run(4, 16, 6, seed, take_turns=False)
        except WrongRound:
            failures += 1
    assert failures > 0
