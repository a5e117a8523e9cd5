"""explain reduction: a pairwise tree, neutral padding, and why the accumulator is fp32."""

from __future__ import annotations

import math
import operator
import struct

from learning.checking import reference as ref

from .script import Script

VALUES = [3, 1, 4, 1, 5]


def _round(value: float, fmt: str) -> float:
    """Round a Python float to float16 ('e') or float32 ('f'), as GPU registers would hold it."""
    return struct.unpack(fmt, struct.pack(fmt, value))[0]


def running_sum(count: int, fmt: str) -> float:
    total = 0.0
    for _ in range(count):
        total = _round(total + 1.0, fmt)
    return total


def build() -> Script:
    s = Script("reduction: summing in a tree of pairs")
    s.say(f"values = {VALUES}; a block of lanes is a power of two long.")
    s.ask(f"next power of two >= {len(VALUES)}", ref.next_power_of_two(len(VALUES)))
    levels = ref.tree_levels(VALUES, operator.add, 0)
    s.ask("level 0, padded with the neutral element of + (0)", levels[0])
    for depth in range(1, len(levels)):
        s.ask(f"level {depth}: neighbours combined", levels[depth])
    s.say(f"{len(levels) - 1} steps instead of {len(VALUES) - 1} one after another: each level runs in parallel.")
    negatives = [-3, -1, -2]
    s.say(f"\nmax of {negatives}: the padding must not change the answer.")
    s.ask("padded with 0", ref.tree_levels(negatives, max, 0)[-1][0])
    s.ask("padded with -inf", ref.tree_levels(negatives, max, -math.inf)[-1][0])
    s.say("\nAccumulator precision: add 1.0 to a running total 4096 times.")
    s.ask("total kept in float16", running_sum(4096, "e"))
    s.ask("total kept in float32", running_sum(4096, "f"))
    s.say("float16 has 11 significant bits: above 2048, adding 1 rounds back down. Kernels load fp16 and")
    s.say("accumulate in fp32 (tl.zeros(..., dtype=tl.float32)); the result is rounded once, at the end.")
    s.say("\nNext: python -m learning.check reduction")
    return s
