"""Checks for exercise 15 (workshop I6): ring positions, mbarrier phases and parity waits, and the rule that
sends a problem to the pingpong kernel."""

from __future__ import annotations

from learning.checking import reference as ref
from learning.checking.compare import check_value
from learning.checking.trial import CheckFailure, Part

SMS = ref.H200_SMS
SM_CHOICES = [8, 16, 46, 78, 108, 114, 132, 170]
# (m, n, k) the H200 measured in the twelfth session (docs/PERFORMANCE-HISTORY.md), and the default shapes.
MEASURED = [(8192, 8192, 1024), (8192, 8192, 512), (4096, 4096, 1024), (4096, 4096, 2048), (8192, 4096, 1024),
            (4096, 11008, 4096), (11008, 4096, 4096), (4096, 5504, 4096), (5120, 5120, 4096), (4096, 4096, 4096),
            (6144, 6144, 4096), (8192, 11008, 4096), (3072, 8192, 4096), (8192, 8192, 8192), (4096, 4096, 11008),
            (3000, 3000, 3000), (2600, 2600, 2600)]


def check_ring_position(module, trial) -> None:
    cases = [(0, 0, 16), (1, 0, 16), (2, 5, 16), (3, 63, 64), (1, 0, 1), (7, 0, 172), (0, 9, 10)]
    for _ in range(5):
        k_steps = trial.rng.randint(1, 200)
        cases.append((trial.rng.randint(0, 40), trial.rng.randint(0, k_steps - 1), k_steps))
    for tile, k, k_steps in cases:
        call = f"ring_position({tile}, {k}, {k_steps})"
        with trial.case(call):
            check_value(module.ring_position(tile, k, k_steps), ref.ring_position(tile, k, k_steps), call,
                        known_mistakes=[
                            (tile + k, "each tile before this one used k_steps positions: tile * k_steps + k"),
                            (tile * k_steps, "add the K step within the tile: tile * k_steps + k"),
                            ((tile + 1) * k_steps + k, "tiles count from 0: the first tile's steps start at 0"),
                        ])


def check_stage_and_parity(module, trial) -> None:
    cases = [(0, 6), (16, 6), (9, 6), (5, 6), (6, 6), (12, 6), (17, 4), (3, 1), (100, 3)]
    cases += [(trial.rng.randint(0, 5000), trial.rng.randint(1, 12)) for _ in range(5)]
    for position, stages in cases:
        call = f"stage_and_parity({position}, {stages})"
        with trial.case(call):
            got = module.stage_and_parity(position, stages)
            got = tuple(got) if isinstance(got, list) else got
            stage, parity = ref.stage_and_parity(position, stages)
            check_value(got, (stage, parity), call, known_mistakes=[
                ((stage, position % 2), "the parity is the round's, not the position's: (position // stages) % 2"),
                ((stage, position // stages), "the parity is the round number modulo 2: (position // stages) % 2"),
                ((position // stages, stage), "the stage comes first: (position % stages, round % 2)"),
            ])


def check_wait_returns(module, trial) -> None:
    cases = [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (2, 1), (7, 1), (8, 1)]
    cases += [(trial.rng.randint(0, 1000), trial.rng.randint(0, 1)) for _ in range(4)]
    for completed, parity in cases:
        call = f"wait_returns({completed}, {parity})"
        with trial.case(call):
            want = ref.wait_returns(completed, parity)
            check_value(module.wait_returns(completed, parity), want, call, known_mistakes=[
                (not want, "the barrier's current phase is number `completed` (counting from 0); a wait for that "
                           "phase's parity blocks, a wait for the other parity returns"),
                (completed > parity, "a wait only sees parities: compare completed % 2 with the parity"),
            ])


def check_wait_is_right(module, trial) -> None:
    cases = [(0, 0), (1, 0), (3, 2), (2, 2), (1, 2), (0, 2), (5, 2), (4, 2), (10, 3), (0, 1)]
    cases += [(trial.rng.randint(0, 60), trial.rng.randint(0, 60)) for _ in range(5)]
    for completed, wanted in cases:
        call = f"wait_is_right({completed}, {wanted})"
        if completed < wanted:
            off_by_rounds = (f"with {completed} phases completed the wait for round {wanted} may return on round "
                             f"{wanted - 2 * ((wanted - completed + 1) // 2)}'s data, the same parity: it is right "
                             "only within one round (wanted <= completed <= wanted + 1)")
        else:
            off_by_rounds = (f"with {completed} phases completed round {wanted}'s data has been overwritten by "
                             "later rounds: the wait is right only within one round (wanted <= completed <= "
                             "wanted + 1)")
        with trial.case(call):
            check_value(module.wait_is_right(completed, wanted), ref.wait_is_right(completed, wanted), call,
                        known_mistakes=[
                            (ref.wait_returns(completed, wanted % 2) == (completed > wanted), off_by_rounds),
                            (completed >= wanted, "with more than wanted + 1 phases completed the stage holds a "
                                                  "later round's data: completed <= wanted + 1 too"),
                            (completed == wanted + 1, "a wait that blocks until the wanted round arrives is right "
                                                      "too: completed == wanted counts"),
                            (completed % 2 == wanted % 2 or completed == wanted + 1,
                             "a parity matching by chance is not enough: phase 0 and phase 2 look alike"),
                        ])


def check_waves_in_tiles(module, trial) -> None:
    tiles = [ref.PINGPONG_TILE, ref.PERSISTENT_TILE, (256, 128), (128, 128), (256, 256)]
    cases = [(m, n, *tile, SMS) for m, n, _ in MEASURED[:8] for tile in (ref.PINGPONG_TILE, ref.PERSISTENT_TILE)]
    cases += [(100, 100, 128, 128, SMS), (128, 256, 128, 256, SMS)]
    for _ in range(6):
        tile = trial.rng.choice(tiles)
        cases.append((trial.rng.randint(1, 20000), trial.rng.randint(1, 20000), *tile, trial.rng.choice(SM_CHOICES)))
    for m, n, block_m, block_n, sms in cases:
        call = f"waves_in_tiles({m}, {n}, {block_m}, {block_n}, {sms})"
        with trial.case(call):
            count = ref.tile_count(m, n, block_m, block_n)
            size = block_m * block_n // (128 * 128)
            check_value(module.waves_in_tiles(m, n, block_m, block_n, sms),
                        ref.waves_in_tiles(m, n, block_m, block_n, sms), call, known_mistakes=[
                            (ref.cdiv((m // block_m) * (n // block_n), sms) * size,
                             "a tile that hangs over C's edge is still a tile: cdiv(m, block_m) * cdiv(n, block_n)"),
                            (ref.cdiv(count, sms), "count the busiest program's share in 128x128 tiles: a "
                                                   f"{block_m}x{block_n} tile is {size} of them"),
                            (count // sms * size, "the busiest program takes the rounded-up share: a part-full "
                                                  "last wave still costs a whole tile"),
                            (count * size / sms, "a program runs whole tiles: round its share up"),
                        ])


def _waves_first(module, m: int, n: int, sms: int, failure: CheckFailure) -> None:
    """pingpong_pays_off compares two waves_in_tiles answers: when it is wrong and the learner's waves_in_tiles is
    wrong for either tile here too, point at waves_in_tiles rather than at pingpong_pays_off's own logic."""
    for tile in (ref.PINGPONG_TILE, ref.PERSISTENT_TILE):
        try:
            got = module.waves_in_tiles(m, n, *tile, sms)
        except Exception:  # noqa: BLE001 - its own part reports how it fails
            return
        want = ref.waves_in_tiles(m, n, *tile, sms)
        if got != want:
            raise CheckFailure(f"{failure}. But waves_in_tiles({m}, {n}, {tile[0]}, {tile[1]}, {sms}) returned {got}, "
                               f"expected {want}: pingpong_pays_off compares two of its answers, so fix "
                               "waves_in_tiles first") from None


def check_pingpong_pays_off(module, trial) -> None:
    cases = [(m, n, k, SMS, ref.PINGPONG_MAX_K) for m, n, k in MEASURED]
    cases += [(4096, 4096, 2048, SMS, 1024), (4096, 4096, 2049, SMS, ref.PINGPONG_MAX_K)]
    for _ in range(6):
        cases.append((trial.rng.randint(512, 20000), trial.rng.randint(512, 20000),
                      trial.rng.choice([512, 1024, 2048, 4096, 8192]), trial.rng.choice(SM_CHOICES),
                      trial.rng.choice([1024, 2048, 4096])))
    for m, n, k, sms, max_k in cases:
        call = f"pingpong_pays_off({m}, {n}, {k}, {sms}" + (f", max_k={max_k})" if max_k != 2048 else ")")
        with trial.case(call):
            want = ref.pingpong_pays_off(m, n, k, sms, max_k)
            ours = ref.waves_in_tiles(m, n, *ref.PINGPONG_TILE, sms)
            theirs = ref.waves_in_tiles(m, n, *ref.PERSISTENT_TILE, sms)
            mistakes = [
                (k <= max_k, "a long K can still pay off: when the 128x128 tiles end the busiest program's share "
                             "sooner (waves_in_tiles smaller), take the pingpong kernel too"),
                (k <= max_k or ours <= theirs, "equal waves keep the persistent kernel (its larger tiles read "
                                               "less): compare with <"),
                (k < max_k or ours < theirs, "K equal to max_k is short enough: k <= max_k"),
                (k <= 2048 or ours < theirs, "max_k is an argument: compare with it, not a fixed 2048"),
            ]
            try:
                check_value(module.pingpong_pays_off(m, n, k, sms, max_k), want, call, known_mistakes=mistakes)
            except CheckFailure as failure:
                _waves_first(module, m, n, sms, failure)
                raise


PARTS = [
    Part("ring_position", check_ring_position),
    Part("stage_and_parity", check_stage_and_parity),
    Part("wait_returns", check_wait_returns),
    Part("wait_is_right", check_wait_is_right),
    Part("waves_in_tiles", check_waves_in_tiles),
    Part("pingpong_pays_off", check_pingpong_pays_off),
]
