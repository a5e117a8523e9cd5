"""Checks for exercise 14 (workshop I5): tile counts, waves, how busy the SMs are, and the largest tile that
fills them."""

from __future__ import annotations

import functools

from learning.checking import reference as ref
from learning.checking.compare import check_value
from learning.checking.trial import Part

SMS = ref.H200_SMS
TILES = ref.REGISTERS_TILES
# SM counts of real GPUs and a few odd ones.
SM_CHOICES = [8, 16, 46, 78, 108, 114, 132, 170]
BLOCKS = [16, 32, 64, 128, 256]
# Tiles the random cases draw candidate lists from; a list keeps this order, largest first.
TILE_POOL = [(256, 256), (256, 128), (128, 256), (256, 64), (128, 128), (64, 256), (128, 64), (64, 128),
             (64, 64), (32, 64), (64, 32), (32, 32), (16, 16)]
# (m, n) of C at shapes the H200 measured (docs/PERFORMANCE-HISTORY.md, the eleventh session), and two more.
MEASURED = [(4096, 4096), (2048, 2048), (768, 4096), (512, 4096), (1000, 1000), (1024, 1024), (128, 11008),
            (256, 4096), (128, 4096), (512, 512), (64, 4096), (16, 4096), (64, 16384), (300, 260), (100, 16384)]


def _size(trial, high=20000):
    """A matrix side from 8 to about `high`, small and large alike (log-uniform)."""
    return max(1, min(high, int(2 ** trial.rng.uniform(3, 14.3))))


def check_tile_count(module, trial) -> None:
    cases = [(1000, 1000, 128, 64), (512, 4096, 256, 128), (512, 4096, 256, 64), (768, 4096, 256, 128),
             (128, 11008, 128, 128), (128, 11008, 128, 64), (4096, 4096, 256, 128), (300, 260, 64, 64),
             (1, 1, 64, 64), (64, 64, 64, 64), (65, 64, 64, 64), (64, 16384, 256, 128)]
    cases += [(_size(trial), _size(trial), trial.rng.choice(BLOCKS), trial.rng.choice(BLOCKS)) for _ in range(5)]
    for m, n, bm, bn in cases:
        with trial.case(f"tile_count({m}, {n}, {bm}, {bn})"):
            check_value(module.tile_count(m, n, bm, bn), ref.tile_count(m, n, bm, bn),
                        f"tile_count({m}, {n}, {bm}, {bn})", known_mistakes=[
                            ((m // bm) * (n // bn), "a partial tile is still a tile: a program computes the tile "
                                                    "that hangs over C's edge, so round each side up"),
                            (ref.cdiv(m * n, bm * bn), "count the tiles along M and along N, then multiply: area "
                                                       "alone misses the partial tiles down a whole edge"),
                            (m * n / (bm * bn), "count whole tiles along M and along N, then multiply"),
                        ])


def check_waves(module, trial) -> None:
    cases = [(128, SMS), (172, SMS), (132, SMS), (133, SMS), (512, SMS), (86, SMS), (344, SMS), (1, SMS),
             (0, SMS), (64, 1)]
    cases += [(trial.rng.randint(0, 5000), trial.rng.choice(SM_CHOICES)) for _ in range(5)]
    for tiles, sms in cases:
        with trial.case(f"waves({tiles}, {sms})"):
            check_value(module.waves(tiles, sms), ref.waves(tiles, sms), f"waves({tiles}, {sms})",
                        known_mistakes=[
                            (tiles // sms, "the last wave counts even if only a few SMs work in it: round up"),
                            (tiles / sms, "a wave is a whole round of the SMs: round tiles / sms up to a whole "
                                          "number"),
                            (tiles // sms + 1, "when tiles is a multiple of sms no extra wave is needed (and 0 "
                                               "tiles need none): (tiles + sms - 1) // sms"),
                        ])


def check_busy_fraction(module, trial) -> None:
    cases = [(172, SMS), (132, SMS), (66, SMS), (128, SMS), (86, SMS), (512, SMS), (344, SMS), (133, SMS),
             (1, SMS), (5, 1)]
    cases += [(trial.rng.randint(1, 5000), trial.rng.choice(SM_CHOICES)) for _ in range(5)]
    for tiles, sms in cases:
        with trial.case(f"busy_fraction({tiles}, {sms})"):
            count = ref.waves(tiles, sms)
            want = ref.busy_fraction(tiles, sms)
            check_value(module.busy_fraction(tiles, sms), want, f"busy_fraction({tiles}, {sms})",
                        known_mistakes=[
                            (tiles / sms, "that is tiles per SM, which passes 1 beyond one wave; divide by every "
                                          "slot of every wave: tiles / (waves * sms)"),
                            ((tiles - (count - 1) * sms) / sms, "that is the last wave alone; average over all "
                                                                "the waves: tiles / (waves * sms)"),
                            (1 - want, "that is the idle share; the busy share is tiles / (waves * sms)"),
                        ])


def _rule(m, n, sms, candidates, full_fill=0.6, padding=True, floor=64, compare=">=", none_fills="last fitting",
          order=1):
    """choose_tiles with one thing changed (floor=None: C's own size, not rounded): the known mistakes."""
    if padding:
        rows = max(floor, ref.next_power_of_two(m)) if floor else m
        cols = max(floor, ref.next_power_of_two(n)) if floor else n
        fitting = [t for t in candidates if t[0] <= rows and t[1] <= cols]
    else:
        fitting = list(candidates)
    for bm, bn in fitting[::order]:
        count = ref.tile_count(m, n, bm, bn)
        if (count >= full_fill * sms) if compare == ">=" else (count > full_fill * sms):
            return (bm, bn)
    if not fitting:
        return tuple(candidates[-1])
    return {"last fitting": fitting[-1], "last candidate": tuple(candidates[-1]), "none": None}[none_fills]


def _random_candidates(trial):
    if trial.rng.random() < 0.5:
        return list(TILES)
    chosen = [t for t in TILE_POOL if trial.rng.random() < 0.4]
    return chosen or [trial.rng.choice(TILE_POOL)]


def check_choose_tiles(module, trial) -> None:
    cases = [(m, n, SMS, TILES, 0.6) for m, n in MEASURED]
    cases += [
        (1536, 1408, 110, TILES, 0.6),  # 256x128 makes 66 tiles: exactly 0.6 of 110
        (512, 4096, SMS, TILES, 0.3),
        (1000, 1000, SMS, TILES, 1.0),
        (100, 100, SMS, [(256, 128), (256, 64)], 0.6),  # nothing fits
        (40, 40, SMS, [(128, 128), (64, 64), (32, 256)], 0.6),
        (20, 20, 8, [(64, 64), (32, 32), (16, 16)], 0.6),
        (16, 4096, 100, [(64, 64), (32, 32)], 0.6),  # 16 rows count as 64: 64x64 tiles fit, and 64 of them fill
    ]
    for _ in range(8):
        cases.append((_size(trial), _size(trial), trial.rng.choice(SM_CHOICES), _random_candidates(trial),
                      trial.rng.choice([0.6, 0.6, 0.4, 0.8, 1.0])))
    for m, n, sms, candidates, fill in cases:
        call = f"choose_tiles({m}, {n}, {sms}, {candidates}" + (f", full_fill={fill})" if fill != 0.6 else ")")
        with trial.case(call):
            got = module.choose_tiles(m, n, sms, [tuple(t) for t in candidates], fill)
            got = tuple(got) if isinstance(got, list) else got
            want = ref.choose_tiles(m, n, sms, candidates, fill)
            rule = functools.partial(_rule, m=m, n=n, sms=sms, candidates=candidates, full_fill=fill)
            # The first that matches names the mistake: the ones the fixed cases meet last come first.
            check_value(got, want, call, known_mistakes=[
                (rule(none_fills="last candidate"), "when no tile fills the SMs, take the last *fitting* tile: "
                                                    "the last candidate may be one that the padding rule left "
                                                    "out"),
                (rule(padding=False), "a tile taller or wider than C rounded up to a power of two (at least 64) "
                                      "is mostly padding: leave such tiles out first (C with 64 rows gets no "
                                      "128-row tile)"),
                (rule(floor=None), "round C's rows and columns up to a power of two, at least 64, before "
                                   "comparing: 100 rows count as 128 (128-row tiles fit them), 20 rows as 64"),
                (rule(floor=1), "the rounded size is at least 64: 20 rows count as 64, max(64, the power of "
                                "two)"),
                (rule(order=-1), "that is the smallest tile that fills the SMs; take the largest (the first in "
                                 "the list): it reads A and B the fewest times"),
                (rule(full_fill=0), "that is the largest fitting tile whether or not it fills the SMs: take a "
                                    "tile only if its tile_count reaches full_fill * sms"),
                (tuple(candidates[0]), "that is the largest tile whether or not it fits or fills: take a tile "
                                       "only if its tile_count reaches full_fill * sms"),
                (rule(compare=">"), "a tile whose count is exactly full_fill * sms fills the SMs: compare "
                                    "with >="),
                (rule(full_fill=0.6), "full_fill is an argument: compare with full_fill * sms, not a fixed 0.6"),
                (rule(none_fills="none"), "when no tile fills the SMs, take the smallest that fits (the last "
                                          "fitting one): it makes the most tiles"),
            ])


PARTS = [
    Part("tile_count", check_tile_count),
    Part("waves", check_waves),
    Part("busy_fraction", check_busy_fraction),
    Part("choose_tiles", check_choose_tiles),
]
