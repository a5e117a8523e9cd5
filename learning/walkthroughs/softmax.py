"""explain softmax: overflow, the max shift, and masked lanes."""

from __future__ import annotations

import math

from .script import Script

ROW = [1000.0, 1001.0, 1002.0]


def _float32_exp(x: float) -> float:
    """exp as a float32 register would hold it: anything above about 3.4e38 is inf."""
    try:
        value = math.exp(x)
    except OverflowError:
        return math.inf
    return math.inf if value > 3.4028234663852886e38 else value


def build() -> Script:
    s = Script("softmax: exp without overflow")
    s.say(f"row = {ROW}")
    s.ask("exp(1000) in float32", _float32_exp(1000.0))
    s.ask("inf / inf", "nan: the naive softmax returns NaN")
    top = max(ROW)
    s.say("\nsoftmax(x) = softmax(x - c) for any c, because exp(-c) cancels. Choose c = max(row).")
    shifted = [x - top for x in ROW]
    s.ask("row - max(row)", shifted)
    exps = [math.exp(x) for x in shifted]
    s.ask("exp of that", [round(e, 4) for e in exps])
    total = sum(exps)
    s.ask("sum", round(total, 4))
    s.ask("probabilities", [round(e / total, 4) for e in exps])
    s.say("\nA masked lane (column past the end of the row) must count for nothing.")
    s.ask("exp(-inf - max)", math.exp(-math.inf))
    s.say("So masked loads use other=-inf. With other=0 a masked lane adds exp(0 - max) to the sum.")
    s.say("\nNext: python -m learning.check softmax")
    return s
